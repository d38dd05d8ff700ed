// What the editor holds: the playground's code (and the example it came from) or an exercise's
// draft. The bar above the editor names it and, in an exercise, offers the way back to the
// playground; under it, when a share link's code replaced a draft, the way back to that draft.

import type { CodeEditor } from "../editor/editor";
import { h } from "../ui/dom";
import { currentLang, t } from "../ui/i18n";
import { storage } from "../ui/storage";

type Titles = { en: string; zh?: string };
export type Context = { kind: "playground" } | { kind: "exercise"; id: string; titles: Titles };

export class ContextBar {
  current: Context = { kind: "playground" };
  readonly element: HTMLElement;
  /** The example the playground's code came from (its title names the bar), or null. */
  private example: Titles | null = null;
  private readonly label = h("span", { class: "context-label" });
  private readonly back = h("button", { type: "button", class: "link", hidden: true }, "");
  private readonly keptText = h("span", {});
  private readonly keptButton = h("button", { type: "button", class: "link kept-swap" }, "");
  private readonly kept = h("div", { class: "kept-bar", role: "status", hidden: true }, this.keptText, this.keptButton);

  constructor(
    private readonly editor: CodeEditor,
    private readonly workspace: HTMLElement,
    onBack: () => void,
  ) {
    this.element = h("div", { class: "context" }, h("div", { class: "context-bar" }, this.label, this.back), this.kept);
    this.back.addEventListener("click", onBack);
    this.keptButton.addEventListener("click", () => this.swapKept());
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

  /** An example was loaded into the playground (null: the code is no example's). */
  showExample(titles: Titles | null): void {
    this.example = titles;
    this.render();
  }

  render(): void {
    const context = this.current;
    const title = (titles: Titles) => (currentLang() === "zh" ? titles.zh : undefined) ?? titles.en;
    if (context.kind === "exercise") this.label.textContent = `${t("nav.exercises")} · ${title(context.titles)}`;
    else this.label.textContent = this.example ? t("context.example", { title: title(this.example) }) : t("app.title");
    this.back.hidden = context.kind === "playground";
    this.back.textContent = `← ${t("app.title")}`;
    this.renderKept();
  }

  private where(): string {
    return this.current.kind === "playground" ? "playground" : this.current.id;
  }

  private renderKept(): void {
    const kept = storage.kept(this.where());
    this.kept.hidden = !kept || kept.code === this.editor.code;
    if (!kept) return;
    this.keptText.textContent = t(kept.kind === "draft" ? "kept.draft" : "kept.link");
    this.keptButton.textContent = t(kept.kind === "draft" ? "kept.draft.restore" : "kept.link.restore");
  }

  /** The kept code and the editor's trade places: neither is ever lost (Ctrl+Z undoes it too). */
  private swapKept(): void {
    const where = this.where();
    const kept = storage.kept(where);
    if (!kept) return;
    const mine = this.editor.code;
    storage.unkeep(kept);
    storage.keep(where, mine, kept.kind === "draft" ? "link" : "draft");
    this.editor.replace(kept.code);
    if (where === "playground") this.example = null;
    this.render();
    this.editor.focus();
  }
}
