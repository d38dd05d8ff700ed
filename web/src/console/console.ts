// The console: stdout and stderr as they stream, tracebacks (ui/traceback.ts) whose "main.py"
// line numbers are buttons that move the editor's cursor, and one-line notes from the playground.

import type { PyError } from "../worker/protocol";
import { clear, h } from "../ui/dom";
import { t } from "../ui/i18n";
import { renderTraceback } from "../ui/traceback";

const MAX_CHARS = 200_000; // characters of output kept on the page
const CHUNK_CHARS = 8_192;
// While output streams faster than this per frame, only the newest FRAME_CHARS are drawn each
// frame (after a "skipped" note); the rest of the run's output is drawn in full when it ends.
const FRAME_CHARS = 4_096; // output appended to one text node before a new one starts
const MAIN_FILE = "main.py";

export class ConsoleView {
  readonly element: HTMLElement;
  private readonly output: HTMLElement;
  private readonly placeholder: HTMLElement;
  private chars = 0;
  private group: HTMLElement | null = null; // the block that takes new output
  private groupChars = 0;
  private atLineStart = true;
  private tail: { kind: string; node: Text } | null = null;
  private pending: { kind: "stdout" | "stderr"; text: string }[] = [];
  private pendingChars = 0;
  private dropped = false;
  private frame = 0;
  private skipNote: HTMLElement | null = null; // set while a flood is being skipped through

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
    this.skipNote = null;
    this.endGroup();
    this.placeholder.hidden = false;
  }

  /** Streamed output; drawn on the next animation frame, so a flood of prints costs one draw a frame. */
  write(kind: "stdout" | "stderr", text: string): void {
    const last = this.pending[this.pending.length - 1];
    if (last && last.kind === kind) last.text += text;
    else this.pending.push({ kind, text });
    this.pendingChars += text.length;
    if (this.pendingChars > 2 * MAX_CHARS) this.dropPending(); // amortized, not per message
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush(false));
  }

  /** Only the newest MAX_CHARS characters can be kept: drop older pending text unrendered. */
  private dropPending(keep = MAX_CHARS): void {
    while (this.pendingChars > keep && this.pending.length) {
      const first = this.pending[0];
      const excess = this.pendingChars - keep;
      if (first.text.length <= excess) {
        this.pending.shift();
        this.pendingChars -= first.text.length;
      } else {
        first.text = first.text.slice(excess);
        this.pendingChars -= excess;
      }
      this.dropped = true;
    }
  }

  /**
   * Draw the pending output. `all` false (an animation frame during a run): when more than
   * FRAME_CHARS wait, draw only the newest FRAME_CHARS, after a note that output was skipped
   * (the text drawn after that note is replaced each frame, so it is always contiguous).
   */
  flush(all = true): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    if (!all && this.pendingChars > FRAME_CHARS) {
      this.dropPending(FRAME_CHARS);
      this.skipping();
    } else {
      this.dropPending();
      this.skipNote = null;
    }
    const pending = this.pending;
    this.pending = [];
    this.pendingChars = 0;
    for (const { kind, text } of pending) this.append(kind, text);
    this.trim();
    this.scroll();
  }

  /**
   * Output goes into blocks of whole lines of about CHUNK_CHARS characters: the browser lays out
   * and paints only the blocks on screen (content-visibility), and trimming drops whole blocks.
   */
  private append(kind: string, text: string): void {
    this.placeholder.hidden = true;
    while (text) {
      if (!this.group || (this.groupChars >= CHUNK_CHARS && this.atLineStart)) this.newGroup();
      const room = CHUNK_CHARS - this.groupChars;
      let take = text.length;
      if (take > room) {
        const cut = text.lastIndexOf("\n", Math.max(room - 1, 0));
        const next = text.indexOf("\n");
        take = cut >= 0 ? cut + 1 : next >= 0 ? next + 1 : text.length;
      }
      this.appendPiece(kind, text.slice(0, take));
      text = text.slice(take);
    }
  }

  /** Show the skipped-output note, and drop what was drawn after it during an earlier frame. */
  private skipping(): void {
    if (!this.skipNote) {
      this.skipNote = h("div", { class: "note skipped" }, t("console.skipped"));
      this.output.append(this.skipNote);
    }
    while (this.skipNote.nextSibling) {
      const next = this.skipNote.nextSibling as HTMLElement;
      this.chars -= next.textContent?.length ?? 0;
      next.remove();
    }
    this.endGroup();
  }

  private newGroup(): void {
    this.group = h("div", { class: "out-group" });
    this.output.append(this.group);
    this.groupChars = 0;
    this.tail = null;
  }

  private endGroup(): void {
    this.group = null;
    this.groupChars = 0;
    this.atLineStart = true;
    this.tail = null;
  }

  private appendPiece(kind: string, text: string): void {
    if (this.tail && this.tail.kind === kind) {
      this.tail.node.appendData(text);
    } else {
      const node = document.createTextNode(text);
      this.group!.append(h("span", { class: `out ${kind}` }, node));
      this.tail = { kind, node };
    }
    this.groupChars += text.length;
    this.chars += text.length;
    this.atLineStart = text.endsWith("\n");
  }

  /** Keep the newest MAX_CHARS characters: whole old blocks, or the start of the only one left. */
  private trim(): void {
    if (this.chars <= MAX_CHARS && !this.dropped) return;
    let first = this.output.firstElementChild as HTMLElement | null;
    if (first?.classList.contains("truncated")) first = first.nextElementSibling as HTMLElement | null;
    while (first && this.chars > MAX_CHARS) {
      const next = first.nextElementSibling as HTMLElement | null;
      const length = first.textContent?.length ?? 0;
      if (next || first !== this.group) {
        if (first === this.group) this.endGroup();
        if (first === this.skipNote) this.skipNote = null;
        first.remove();
        this.chars -= length;
      } else {
        const text = first.querySelector(".out")?.firstChild as Text | null;
        const excess = Math.min(this.chars - MAX_CHARS, text?.length ?? 0);
        text?.deleteData(0, excess);
        this.chars -= excess;
        break;
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
    this.endGroup();
    this.scroll();
  }

  /** A Python traceback: the learner's frames with links to their lines, kael's folded. */
  traceback(error: PyError): void {
    this.flush();
    this.placeholder.hidden = true;
    const block = renderTraceback(error.traceback, MAIN_FILE, this.onLine);
    block.dataset.type = error.type;
    this.output.append(block);
    this.endGroup();
    this.chars += error.traceback.length;
    this.scroll();
  }
}
