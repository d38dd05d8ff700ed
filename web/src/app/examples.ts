// The sidebar's examples: a list of programs, the loaded one marked.

import type { ConsoleView } from "../console/console";
import type { CodeEditor } from "../editor/editor";
import { EXAMPLES, type Example } from "../examples";
import { clear, h } from "../ui/dom";
import { currentLang, t } from "../ui/i18n";
import { rovingFocus } from "../ui/roving";

export class ExamplesList {
  readonly element = h("div", { class: "examples" });
  /** The example last loaded into the playground (a share link carries it). */
  loaded: string | null = null;

  constructor(
    private readonly host: {
      editor: CodeEditor;
      console: ConsoleView;
      leaveExercise: () => void;
      /** An example is now the playground's code (the context bar names it). */
      opened: (example: Example) => void;
    },
  ) {
    this.render();
  }

  /** The example's code replaces the editor's as one edit (Ctrl+Z undoes it), and says so. */
  open(example: Example): void {
    const { editor, console } = this.host;
    this.host.leaveExercise();
    editor.replace(example.code);
    editor.markLine(null);
    this.mark(example.id);
    console.note(t("examples.loaded", { title: example.title[currentLang()] }), "info");
    editor.focus();
  }

  /** Mark an example as loaded (from a share link); unknown ids are ignored. */
  mark(id: string | null | undefined): void {
    if (!id || !EXAMPLES.some((ex) => ex.id === id)) return;
    this.loaded = id;
    this.host.opened(EXAMPLES.find((ex) => ex.id === id)!);
    this.render();
  }

  render(): void {
    clear(this.element);
    const lang = currentLang();
    const item = (ex: Example) =>
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: "example-item",
            "data-example": ex.id,
            "aria-current": this.loaded === ex.id ? "true" : undefined,
            "aria-describedby": `example-${ex.id}`,
            onclick: () => this.open(ex),
          },
          h("span", { class: "example-title" }, ex.title[lang]),
          h("span", { class: "example-summary", id: `example-${ex.id}` }, ex.summary[lang]),
        ),
      );
    const list = h("ul", { class: "example-list", "aria-label": t("examples.title") }, EXAMPLES.map(item));
    this.element.append(h("h2", {}, t("examples.title")), h("p", { class: "muted" }, t("examples.intro")), list);
    // One Tab stop for the whole list (arrows inside it): the editor is a few Tabs away.
    rovingFocus(list, ".example-item", list.querySelector<HTMLElement>('[aria-current="true"]'));
  }
}
