// The CodeMirror 6 editor: Python highlighting, Ctrl/Cmd+Enter runs, a status line with the
// cursor position, and goToLine for traceback links.

import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { Compartment, EditorSelection, EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, keymap, WidgetType } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { h } from "../ui/dom";
import { accessibleDark } from "./dark";
import { accessibleLight } from "./light";
import "./editor.css";
import { runSwitches } from "../stepper/link";
import { sw } from "../stepper/words";
import { bind, onLang, t } from "../ui/i18n";

/** The line an error points at: marked until the next run or until the line is edited away. */
const setErrorLine = StateEffect.define<number | null>();
const errorLine = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setErrorLine)) continue;
      if (effect.value === null) marks = Decoration.none;
      else {
        const line = tr.state.doc.line(Math.min(Math.max(1, effect.value), tr.state.doc.lines));
        marks = Decoration.set([Decoration.line({ class: "cm-error-line", attributes: { "data-error-line": String(line.number) } }).range(line.from)]);
      }
    }
    return marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** A line the editor marks with a note: the lines an error involves ("saved here", "modified
 * here", "backward here"), or the line a stepper stands on. */
export interface LineNote {
  line: number; // 1-based
  kind: string; // "saved" | "modified" | "backward" | "step"; the line's class is cm-note-<kind>
  text: string; // what happened there, shown at the end of the line
}

class NoteWidget extends WidgetType {
  constructor(private readonly note: LineNote) {
    super();
  }

  eq(other: NoteWidget): boolean {
    return other.note.text === this.note.text && other.note.kind === this.note.kind;
  }

  toDOM(): HTMLElement {
    return h("span", { class: `cm-line-note cm-line-note-${this.note.kind}`, "data-line": String(this.note.line) }, this.note.text);
  }
}

const setNotes = StateEffect.define<LineNote[]>();
const lineNotes = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(setNotes)) continue;
      const doc = tr.state.doc;
      const ranges = effect.value
        .filter((n) => n.line >= 1 && n.line <= doc.lines)
        .sort((a, b) => a.line - b.line)
        .flatMap((n) => {
          const line = doc.line(n.line);
          return [
            Decoration.line({ class: `cm-note-${n.kind}`, attributes: { "data-note": n.kind } }).range(line.from),
            Decoration.widget({ widget: new NoteWidget(n), side: 1 }).range(line.to),
          ];
        });
      marks = Decoration.set(ranges, true);
    }
    return marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** The switch for kael's set_detect_source: autograd errors name the lines involved (on by
 * default; its cost is in tests/bench/forward_recording.py). */
function sourceSwitch(): HTMLElement {
  const box = h("input", { type: "checkbox", "data-testid": "detect-source" }) as HTMLInputElement;
  box.checked = runSwitches.detectSource;
  box.addEventListener("change", () => runSwitches.setDetectSource(box.checked));
  const text = h("span", {});
  const render = () => (text.textContent = sw("source.switch"));
  render();
  onLang(render);
  return h("label", { class: "source-switch" }, box, " ", text);
}

export interface EditorOptions {
  doc: string;
  dark: boolean;
  onRun: () => void;
  onChange: (code: string) => void;
}

export class CodeEditor {
  readonly element: HTMLElement;
  private readonly view: EditorView;
  private readonly theme = new Compartment();
  private readonly label = new Compartment();
  private readonly position: HTMLElement;
  private silent = false;

  constructor(options: EditorOptions) {
    this.position = h("span", { class: "editor-position", "aria-live": "off" });
    const host = h("div", { class: "editor-host" });
    const hint = h("span", { class: "editor-hint" });
    bind(hint, "editor.hint");
    this.element = h("div", { class: "editor" }, host, h("div", { class: "editor-status" }, this.position, sourceSwitch(), hint));

    this.view = new EditorView({
      parent: host,
      state: EditorState.create({
        doc: options.doc,
        extensions: [
          Prec.highest(
            keymap.of([
              { key: "Mod-Enter", run: () => (options.onRun(), true) },
            ]),
          ),
          basicSetup,
          keymap.of([indentWithTab]),
          python(),
          errorLine,
          lineNotes,
          EditorState.tabSize.of(4),
          this.theme.of(options.dark ? accessibleDark : accessibleLight),
          this.label.of(this.labelAttrs()),
          EditorView.updateListener.of((update) => {
            if (update.docChanged && !this.silent) options.onChange(update.state.doc.toString());
            if (update.selectionSet || update.docChanged) this.showPosition();
            if (update.selectionSet && update.transactions.some((t) => t.isUserEvent("select.pointer"))) {
              this.onLineClick(update.state.doc.lineAt(update.state.selection.main.head).number);
            }
          }),
        ],
      }),
    });
    this.showPosition();
    onLang(() => {
      this.view.dispatch({ effects: this.label.reconfigure(this.labelAttrs()) });
      this.showPosition();
    });
  }

  private labelAttrs() {
    // tabindex: axe counts the scroller as reachable by keyboard only through a tabbable child.
    return EditorView.contentAttributes.of({ "aria-label": t("editor.label"), tabindex: "0" });
  }

  private showPosition(): void {
    const head = this.view.state.selection.main.head;
    const line = this.view.state.doc.lineAt(head);
    this.position.textContent = t("editor.position", { line: line.number, col: head - line.from + 1 });
    this.position.dataset.line = String(line.number);
  }

  get code(): string {
    return this.view.state.doc.toString();
  }

  /** Replace the whole text; `notify` false when loading a draft (no onChange). */
  setCode(code: string, notify = false): void {
    this.silent = !notify;
    this.view.dispatch({
      changes: { from: 0, to: this.view.state.doc.length, insert: code },
      selection: EditorSelection.cursor(0),
      scrollIntoView: true,
    });
    this.silent = false;
  }

  /** Mark the line an error points at (1-based), or clear the mark with null. */
  markLine(lineNumber: number | null): void {
    this.view.dispatch({ effects: setErrorLine.of(lineNumber) });
  }

  /** Mark lines with notes (replacing earlier ones); [] clears them. */
  setNotes(notes: LineNote[]): void {
    this.view.dispatch({ effects: setNotes.of(notes) });
  }

  /** Scroll `lineNumber` into view without moving the cursor or the focus (a stepper's line). */
  reveal(lineNumber: number): void {
    const doc = this.view.state.doc;
    const line = doc.line(Math.min(Math.max(1, lineNumber), doc.lines));
    this.view.dispatch({ effects: EditorView.scrollIntoView(line.from, { y: "nearest" }) });
  }

  /** Called with the line a pointer click put the cursor on (the stepper highlights its nodes). */
  onLineClick: (line: number) => void = () => {};

  /** Replace the whole text as one edit the learner can undo (Ctrl+Z); onChange is told. */
  replace(code: string): void {
    this.view.dispatch({
      changes: { from: 0, to: this.view.state.doc.length, insert: code },
      selection: EditorSelection.cursor(0),
      scrollIntoView: true,
      userEvent: "input.replace",
    });
  }

  /** Put the cursor at the start of `lineNumber` (1-based), select the line, and focus. */
  goToLine(lineNumber: number): void {
    const doc = this.view.state.doc;
    const line = doc.line(Math.min(Math.max(1, lineNumber), doc.lines));
    const text = line.text;
    const indent = text.length - text.trimStart().length;
    this.view.dispatch({
      selection: EditorSelection.cursor(line.from + indent),
      effects: EditorView.scrollIntoView(line.from, { y: "center" }),
    });
    this.view.focus();
  }

  setDark(dark: boolean): void {
    this.view.dispatch({ effects: this.theme.reconfigure(dark ? accessibleDark : accessibleLight) });
  }

  focus(): void {
    this.view.focus();
  }
}
