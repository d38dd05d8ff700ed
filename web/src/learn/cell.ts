// One runnable cell of a lesson: its code, Run and "Open in editor", and its expected output
// beside the learner's, with whether they match.

import { h } from "../ui/dom";
import { t } from "../ui/i18n";
import type { CellResult } from "./progress";
import type { Cell } from "./lessons";

export interface CellRun {
  output: string;
  result: CellResult;
}

export interface CellActions {
  run(cell: Cell): Promise<CellRun>;
  open(cell: Cell): void;
  canRun(): boolean;
}

/** True when the learner's output is the expected one (trailing spaces and newlines aside). */
export function outputMatches(output: string, expected: string): boolean {
  const norm = (text: string) => text.replace(/\r\n/g, "\n").split("\n").map((line) => line.trimEnd()).join("\n").trimEnd();
  return norm(output) === norm(expected);
}

export function cellView(cell: Cell, index: number, last: CellRun | undefined, before: CellResult | undefined, actions: CellActions): HTMLElement {
  const title = t("learn.cell.label", { n: index, name: cell.name });
  const yours = h("pre", { class: "cell-output yours", tabindex: "0", "data-testid": "cell-yours" });
  const verdict = h("p", { class: "cell-verdict", "aria-live": "polite", "data-testid": "cell-verdict" });
  const run = h("button", { type: "button", class: "primary cell-run", "aria-label": `${t("learn.cell.run")} · ${title}` }, t("learn.cell.run"));
  const open = h(
    "button",
    { type: "button", class: "cell-open", title: t("learn.cell.open.title"), "aria-label": `${t("learn.cell.open")} · ${title}` },
    t("learn.cell.open"),
  );
  const show = (state: CellRun | null, running = false) => {
    yours.textContent = running ? t("learn.cell.running") : state ? state.output || t("learn.cell.nooutput") : t("learn.cell.notrun");
    yours.classList.toggle("empty", !state || running);
    verdict.className = `cell-verdict ${running ? "" : state?.result ?? before ?? ""}`;
    verdict.dataset.result = running ? "" : state?.result ?? "";
    if (running) verdict.textContent = "";
    else if (state) verdict.textContent = t(state.result === "matched" ? "learn.cell.match" : "learn.cell.differs");
    else verdict.textContent = before === "matched" ? t("learn.cell.matchedBefore") : "";
  };
  const refresh = () => {
    run.disabled = !actions.canRun();
  };
  run.addEventListener("click", async () => {
    run.disabled = true;
    show(null, true);
    const state = await actions.run(cell);
    show(state);
    refresh();
  });
  open.addEventListener("click", () => actions.open(cell));
  show(last ?? null);
  refresh();
  const element = h(
    "figure",
    { class: "cell", "data-cell": cell.name, "aria-label": title },
    h(
      "div",
      { class: "cell-head" },
      h("span", { class: "cell-name" }, title),
      cell.slow ? h("span", { class: "badge slow" }, t("learn.cell.slow")) : null,
      h("span", { class: "cell-actions" }, run, open),
    ),
    h("pre", { class: "cell-code", tabindex: "0" }, h("code", {}, cell.code.trimEnd())),
    h(
      "div",
      { class: "cell-outputs" },
      h("div", {}, h("h4", {}, t("learn.cell.expected")), h("pre", { class: "cell-output expected", tabindex: "0", "data-testid": "cell-expected" }, cell.expected.trimEnd())),
      h("div", {}, h("h4", {}, t("learn.cell.yours")), yours),
    ),
    verdict,
  );
  (element as HTMLElement & { refresh?: () => void }).refresh = refresh;
  return element;
}
