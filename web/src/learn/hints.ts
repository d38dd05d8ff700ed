// An exercise's hints, one at a time: each revealed on request and remembered in progress, so
// that a learner coming back sees the hints they already asked for and no more.

import { h } from "../ui/dom";
import { t } from "../ui/i18n";
import { splitHints } from "./parse";
import { progress } from "./progress";

/** `render(el, markdown)` typesets Markdown into an element (the exercise view's renderInto). */
export function hintsView(exercise: string, markdown: string, render: (el: HTMLElement, text: string) => void): HTMLElement {
  const { intro, hints } = splitHints(markdown);
  const list = h("ol", { class: "hint-list" });
  const button = h("button", { type: "button", class: "hint-next" });
  const status = h("p", { class: "muted small hint-status", "aria-live": "polite" });
  const box = h("section", { class: "hints", "aria-label": t("exercises.hints") }, h("h3", {}, t("exercises.hints")), list, status, button);
  if (!hints.length) {
    status.textContent = t("hints.none");
    button.hidden = true;
    return box;
  }
  let shown = 0;
  const reveal = (count: number, focus: boolean) => {
    while (shown < Math.min(count, hints.length)) {
      const item = h("li", { class: "hint markdown", tabindex: "-1" });
      render(item, shown === 0 && intro ? `${intro}\n\n${hints[shown]}` : hints[shown]);
      list.append(item);
      shown += 1;
      if (focus) item.focus();
    }
    status.textContent = t("hints.shown", { n: shown, total: hints.length });
    button.hidden = shown >= hints.length;
    button.textContent = t("hints.show", { n: shown + 1, total: hints.length });
  };
  button.addEventListener("click", () => {
    reveal(shown + 1, true);
    progress.setHintsShown(exercise, shown);
  });
  reveal(progress.hintsShown(exercise), false);
  return box;
}
