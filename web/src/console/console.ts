// The console: stdout and stderr as they stream, tracebacks whose "main.py" line numbers are
// buttons that move the editor's cursor, and one-line notes from the playground.

import type { PyError } from "../worker/protocol";
import { clear, h } from "../ui/dom";
import { t } from "../ui/i18n";

const MAX_CHARS = 200_000; // characters of output kept on the page
const CHUNK_CHARS = 8_192; // output appended to one text node before a new one starts
const FRAME_LINE = /^(\s*File "main\.py", line )(\d+)(.*)$/;

export class ConsoleView {
  readonly element: HTMLElement;
  private readonly output: HTMLElement;
  private readonly placeholder: HTMLElement;
  private chars = 0;
  private tail: { kind: string; node: Text } | null = null;
  private pending: { kind: "stdout" | "stderr"; text: string }[] = [];
  private pendingChars = 0;
  private dropped = false;
  private frame = 0;

  constructor(private readonly onLine: (line: number) => void) {
    this.placeholder = h("p", { class: "placeholder" }, t("console.empty"));
    this.output = h("div", { class: "console-output", role: "log", "aria-live": "polite", tabindex: "0" });
    this.element = h("div", { class: "console" }, this.placeholder, this.output);
  }

  refreshText(): void {
    this.placeholder.textContent = t("console.empty");
  }

  clear(): void {
    this.flush();
    clear(this.output);
    this.chars = 0;
    this.dropped = false;
    this.tail = null;
    this.placeholder.hidden = false;
  }

  /** Streamed output; appended on the next animation frame so a flood of prints stays cheap. */
  write(kind: "stdout" | "stderr", text: string): void {
    const last = this.pending[this.pending.length - 1];
    if (last && last.kind === kind) last.text += text;
    else this.pending.push({ kind, text });
    this.pendingChars += text.length;
    // Far more than can be kept: drop the oldest pending text now rather than render it.
    while (this.pendingChars > 2 * MAX_CHARS && this.pending.length) {
      const first = this.pending[0];
      const excess = this.pendingChars - 2 * MAX_CHARS;
      if (first.text.length <= excess) {
        this.pending.shift();
        this.pendingChars -= first.text.length;
      } else {
        first.text = first.text.slice(excess);
        this.pendingChars -= excess;
      }
      this.dropped = true;
    }
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  flush(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const pending = this.pending;
    this.pending = [];
    this.pendingChars = 0;
    for (const { kind, text } of pending) this.append(kind, text);
    this.trim();
    this.scroll();
  }

  private append(kind: string, text: string): void {
    this.placeholder.hidden = true;
    // Small chunks join the previous one; big ones get their own node, so trimming the
    // oldest output never has to touch the newest.
    if (this.tail && this.tail.kind === kind && this.tail.node.length < CHUNK_CHARS) {
      this.tail.node.appendData(text);
    } else {
      const node = document.createTextNode(text);
      this.output.append(h("span", { class: `out ${kind}` }, node));
      this.tail = { kind, node };
    }
    this.chars += text.length;
  }

  /** Keep the newest MAX_CHARS characters: whole old nodes first, then the start of one. */
  private trim(): void {
    if (this.chars <= MAX_CHARS && !this.dropped) return;
    let first = this.output.firstElementChild as HTMLElement | null;
    if (first?.classList.contains("truncated")) first = first.nextElementSibling as HTMLElement | null;
    while (first && this.chars > MAX_CHARS) {
      const length = first.textContent?.length ?? 0;
      const next = first.nextElementSibling as HTMLElement | null;
      if (this.chars - length >= MAX_CHARS / 2 || !first.classList.contains("out")) {
        if (this.tail && first.contains(this.tail.node)) this.tail = null;
        first.remove();
        this.chars -= length;
      } else {
        const text = first.firstChild as Text;
        const excess = this.chars - MAX_CHARS;
        text.deleteData(0, excess);
        this.chars -= excess;
      }
      first = next;
    }
    if (!this.output.firstElementChild?.classList.contains("truncated")) {
      this.output.prepend(h("div", { class: "note truncated" }, t("console.truncated")));
    }
    this.dropped = false;
  }

  private scroll(): void {
    this.output.scrollTop = this.output.scrollHeight;
  }

  note(text: string, kind: "info" | "ok" | "warn" | "error" = "info"): void {
    this.flush();
    this.placeholder.hidden = true;
    this.output.append(h("div", { class: `note ${kind}` }, text));
    this.chars += text.length;
    this.tail = null;
    this.scroll();
  }

  /** A Python traceback; each `File "main.py", line N` becomes a link to line N. */
  traceback(error: PyError): void {
    this.flush();
    this.placeholder.hidden = true;
    const block = h("pre", { class: "traceback", "data-type": error.type });
    for (const line of error.traceback.replace(/\n$/, "").split("\n")) {
      const match = FRAME_LINE.exec(line);
      if (match) {
        const lineNo = Number(match[2]);
        block.append(
          match[1],
          h(
            "button",
            {
              type: "button",
              class: "line-link",
              "aria-label": t("console.goto", { line: lineNo }),
              onclick: () => this.onLine(lineNo),
            },
            match[2],
          ),
          match[3],
          "\n",
        );
      } else {
        block.append(line, "\n");
      }
    }
    this.output.append(block);
    this.tail = null;
    this.chars += error.traceback.length;
    this.scroll();
  }
}
