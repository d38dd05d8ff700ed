// A lesson's Markdown (web/lessons/README.md): self-test questions ("Q: " / "A: " paragraphs)
// above a line "---", then the text, with "@cell <name>" lines where the runnable cells go.
// Hints: an exercise's hints.md as one hint per top-level list item, revealed one at a time.

export interface Question {
  q: string;
  a: string;
}

export type Part = { kind: "text"; text: string } | { kind: "cell"; name: string };

export interface LessonText {
  questions: Question[];
  parts: Part[];
}

const CELL = /^@cell (\S+)\s*$/;

export function parseLesson(source: string): LessonText {
  const text = source.replace(/\r\n/g, "\n");
  const split = text.indexOf("\n---\n");
  const head = split < 0 ? "" : text.slice(0, split);
  const body = split < 0 ? text : text.slice(split + 5);
  return { questions: parseQuestions(head), parts: parseParts(body) };
}

function parseQuestions(head: string): Question[] {
  const questions: Question[] = [];
  let current: Question | null = null;
  let field: "q" | "a" = "q";
  for (const line of head.split("\n")) {
    if (line.startsWith("Q: ")) {
      current = { q: line.slice(3), a: "" };
      questions.push(current);
      field = "q";
    } else if (line.startsWith("A: ") && current) {
      current.a = line.slice(3);
      field = "a";
    } else if (current && line.trim()) {
      current[field] += `\n${line}`;
    }
  }
  return questions;
}

function parseParts(body: string): Part[] {
  const parts: Part[] = [];
  let text: string[] = [];
  const flush = () => {
    const joined = text.join("\n").trim();
    if (joined) parts.push({ kind: "text", text: joined });
    text = [];
  };
  for (const line of body.split("\n")) {
    const cell = CELL.exec(line);
    if (cell) {
      flush();
      parts.push({ kind: "cell", name: cell[1] });
    } else text.push(line);
  }
  flush();
  return parts;
}

/** A hints file without its title: the text before the first item (shown with the first hint)
 * and one hint per top-level list item ("* ", "- ", "1. "), continuation lines included. A file
 * without a list is one hint per paragraph. */
export function splitHints(markdown: string): { intro: string; hints: string[] } {
  const text = markdown.replace(/\r\n/g, "\n").replace(/^\s*#\s[^\n]*\n/, "");
  const item = /^(?:[*-]|\d+[.)]) +/;
  const lines = text.split("\n");
  if (!lines.some((line) => item.test(line))) {
    return { intro: "", hints: text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean) };
  }
  const intro: string[] = [];
  const hints: string[] = [];
  for (const line of lines) {
    if (item.test(line)) hints.push(line.replace(item, ""));
    else if (hints.length && (line.startsWith(" ") || line.startsWith("\t"))) hints[hints.length - 1] += `\n${line.trim()}`;
    else if (hints.length && !line.trim()) continue;
    else if (hints.length) hints[hints.length - 1] += `\n\n${line}`;
    else intro.push(line);
  }
  return { intro: intro.join("\n").trim(), hints: hints.map((hint) => hint.trim()) };
}
