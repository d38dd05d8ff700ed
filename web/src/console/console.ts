// The console: stdout and stderr as they stream, tracebacks whose "main.py" line numbers are
// buttons that move the editor's cursor, and one-line notes from the playground.

import type { PyError } from "../worker/protocol";
import { clear, h } from "../ui/dom";
import { t } from "../ui/i18n";

const MAX_CHARS = 400_000;
const FRAME_LINE = /^(\s*File "main\.py", line )(\d+)(.*)$/;

export class ConsoleView {
  readonly element: HTMLElement;
  private readonly output: HTMLElement;
  private readonly placeholder: HTMLElement;
  private chars = 0;
  private tail: { kind: string; node: Text } | null = null;
  private pending: { kind: "stdout" | "stderr"; text: string }[] = [];
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
    this.tail = null;
    this.placeholder.hidden = false;
  }

  /** Streamed output; appended on the next animation frame so a flood of prints stays cheap. */
  write(kind: "stdout" | "stderr", text: string): void {
    this.pending.push({ kind, text });
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  flush(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const pending = this.pending;
    this.pending = [];
    for (const { kind, text } of pending) this.append(kind, text);
    this.trim();
    this.scroll();
  }

  private append(kind: string, text: string): void {
    this.placeholder.hidden = true;
    if (this.tail && this.tail.kind === kind) {
      this.tail.node.appendData(text);
    } else {
      const node = document.createTextNode(text);
      this.output.append(h("span", { class: `out ${kind}` }, node));
      this.tail = { kind, node };
    }
    this.chars += text.length;
  }

  private trim(): void {
    while (this.chars > MAX_CHARS && this.output.firstChild) {
      const first = this.output.firstChild as HTMLElement;
      this.chars -= first.textContent?.length ?? 0;
      first.remove();
      if (!this.output.firstElementChild?.classList.contains("truncated")) {
        this.output.prepend(h("div", { class: "note truncated" }, t("console.truncated")));
      }
    }
  }

  private scroll(): void {
    this.output.scrollTop = this.output.scrollHeight;
  }

  note(text: string, kind: "info" | "ok" | "warn" | "error" = "info"): void {
    this.flush();
    this.placeholder.hidden = true;
    this.output.append(h("div", { class: `note ${kind}` }, text));
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
