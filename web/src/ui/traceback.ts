// A Python traceback as the learner should read it: their own frames in full with each line
// number a button to that line in the editor, runs of library frames (kael, the harness) folded
// behind a toggle, and the exception's last line, which says what went wrong, always shown.

import { h } from "./dom";
import { t } from "./i18n";

const FRAME = /^(\s*File ")([^"]+)(", line )(\d+)(.*)$/;

interface Frame {
  file: string;
  lines: string[]; // the "File ..." line, then its source and caret lines
}

type Block = { kind: "text"; line: string } | { kind: "frame"; frame: Frame };

function parse(text: string): Block[] {
  const blocks: Block[] = [];
  let frame: Frame | null = null;
  for (const line of text.replace(/\n$/, "").split("\n")) {
    const match = FRAME.exec(line);
    if (match) {
      frame = { file: match[2], lines: [line] };
      blocks.push({ kind: "frame", frame });
    } else if (frame && /^ {4}/.test(line)) {
      frame.lines.push(line);
    } else {
      frame = null;
      blocks.push({ kind: "text", line });
    }
  }
  return blocks;
}

/**
 * `ownFile` names the learner's file ("main.py", or an exercise's solution file); its frames stay
 * open and their line numbers call onLine.
 */
export function renderTraceback(text: string, ownFile: string, onLine: (line: number) => void): HTMLElement {
  const block = h("div", { class: "traceback" });
  let folded: Frame[] = [];
  const fold = () => {
    if (!folded.length) return;
    const files = [...new Set(folded.map((f) => libraryName(f.file)))].join(", ");
    const details = h(
      "details",
      { class: "library-frames" },
      h("summary", {}, t("traceback.library", { count: folded.length, files })),
    );
    for (const frame of folded) details.append(frame.lines.join("\n"), "\n");
    block.append(details);
    folded = [];
  };
  for (const item of parse(text)) {
    if (item.kind === "frame" && !isOwn(item.frame.file, ownFile)) {
      folded.push(item.frame);
      continue;
    }
    fold();
    if (item.kind === "text") block.append(item.line, "\n");
    else appendOwnFrame(block, item.frame, onLine);
  }
  fold();
  return block;
}

function isOwn(file: string, ownFile: string): boolean {
  return file === ownFile || file.endsWith(`/${ownFile}`);
}

/** "kael", "harness" or the file's name: what the folded frames belong to. */
function libraryName(file: string): string {
  const parts = file.split("/");
  const kael = parts.lastIndexOf("kael");
  if (kael >= 0 && kael < parts.length - 1) return "kael";
  if (parts.includes("harness")) return "harness";
  return parts[parts.length - 1];
}

function appendOwnFrame(block: HTMLElement, frame: Frame, onLine: (line: number) => void): void {
  const [head, ...rest] = frame.lines;
  const match = FRAME.exec(head)!;
  const line = Number(match[4]);
  block.append(
    match[1] + match[2] + match[3],
    h(
      "button",
      { type: "button", class: "line-link", "aria-label": t("console.goto", { line }), onclick: () => onLine(line) },
      match[4],
    ),
    match[5],
    "\n",
  );
  for (const text of rest) block.append(text, "\n");
}

/** The deepest line of `ownFile` a traceback names, or null. */
export function deepestLine(text: string, ownFile: string): number | null {
  let line: number | null = null;
  for (const item of parse(text)) {
    if (item.kind === "frame" && isOwn(item.frame.file, ownFile)) line = Number(FRAME.exec(item.frame.lines[0])![4]);
  }
  return line;
}
