// What the editor holds: the playground's code or an exercise's draft. The bar above the editor
// names it and, in an exercise, offers the way back to the playground.

import type { CodeEditor } from "../editor/editor";
import { h } from "../ui/dom";
import { currentLang, t } from "../ui/i18n";
import { storage } from "../ui/storage";

export type Context = { kind: "playground" } | { kind: "exercise"; id: string; titles: { en: string; zh?: string } };

export class ContextBar {
  current: Context = { kind: "playground" };
  readonly element: HTMLElement;
  private readonly label = h("span", { class: "context-label" });
  private readonly back = h("button", { type: "button", class: "link", hidden: true }, "");

  constructor(
    private readonly editor: CodeEditor,
    private readonly workspace: HTMLElement,
    onBack: () => void,
  ) {
    this.element = h("div", { class: "context-bar" }, this.label, this.back);
    this.back.addEventListener("click", onBack);
  }

  /** The editor's code was edited: keep it where this context keeps its code. */
  save(code: string): void {
    if (this.current.kind === "playground") storage.setPlayground(code);
    else storage.setDraft(this.current.id, code);
  }

  set(next: Context, code: string): void {
    this.current = next;
    this.editor.setCode(code);
    this.editor.markLine(null);
    this.workspace.classList.toggle("exercise-open", next.kind === "exercise");
    this.render();
  }

  render(): void {
    const context = this.current;
    this.label.textContent =
      context.kind === "playground"
        ? t("app.title")
        : `${t("nav.exercises")} · ${(currentLang() === "zh" ? context.titles.zh : undefined) ?? context.titles.en}`;
    this.back.hidden = context.kind === "playground";
    this.back.textContent = `← ${t("app.title")}`;
  }
}
