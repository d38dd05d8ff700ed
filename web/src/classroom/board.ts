// A class as its teacher sees it: the join code, the learner × exercise grid (sortable,
// filterable), each exercise's mistake map, and one learner's submissions. Every text a
// learner typed is set as text, never as HTML.

import { clear, h } from "../ui/dom";
import { bind, currentLang, onLang, t } from "../ui/i18n";
import { inline } from "../exercises/feedback";
import type { Dashboard, ExerciseMistakes, LearnerRow, LearnerSubmission, TeacherApi } from "./api";
import { verdictClass, when } from "./chrome";
import { cellRank, type GridView, visibleRows } from "./grid";

export class ClassBoard {
  readonly root = h("section", { class: "class-board" });
  private board: Dashboard | null = null;
  private view: GridView = { sort: { by: "name" }, descending: false, filter: "", stuckOnly: false };
  private readonly status = h("p", { class: "class-status", role: "status" });
  private readonly gridHost = h("div", { class: "class-grid-host", tabindex: "0" });
  private readonly mistakesHost = h("div", { class: "class-mistakes" });
  private readonly drill = h("section", { class: "class-drill", "aria-live": "polite" });
  private mistakeExercise = "";

  constructor(private readonly api: TeacherApi, private readonly classId: string) {
    onLang(() => this.draw());
  }

  async load(): Promise<void> {
    bind(this.status, "class.loading");
    const result = await this.api.dashboard(this.classId);
    if (!result.ok) {
      this.status.textContent = t("class.error", { message: result.message });
      return;
    }
    this.board = result.value;
    this.mistakeExercise ||= this.board.exercises[0] ?? "";
    this.draw();
  }

  private draw(): void {
    if (!this.board) return;
    const b = this.board;
    clear(this.root);
    this.status.textContent = "";
    this.root.append(
      h("h2", {}, b.class.name),
      this.joinPanel(b),
      this.status,
      h("h3", {}, t("class.grid")),
      this.controls(),
      this.gridHost,
      h("h3", {}, t("class.mistakes")),
      this.mistakesHost,
      this.drill,
    );
    this.drawGrid();
    this.drawMistakes();
  }

  private joinPanel(b: Dashboard): HTMLElement {
    const link = new URL(`join.html#code=${b.class.join_code}`, document.baseURI).href;
    const copy = h("button", { type: "button", onclick: () => void navigator.clipboard?.writeText(link)
      .then(() => { copy.textContent = t("class.copied"); }) }, t("class.copyLink"));
    const exportButton = (kind: "csv" | "json") => h("button", { type: "button", "data-export": kind,
      onclick: () => void this.download(kind) }, t(kind === "csv" ? "class.exportCsv" : "class.exportJson"));
    return h("div", { class: "class-join" },
      h("p", {}, t("class.joinCode"), " ", h("code", { class: "join-code", "data-testid": "join-code" }, b.class.join_code)),
      h("p", { class: "class-join-link" }, h("a", { href: link }, link), " ", copy),
      h("p", {}, t("class.deadline"), " ", when(b.class.deadline), " · ",
        t(b.learners.length === 1 ? "class.learnerCountOne" : "class.learnerCount", { n: b.learners.length })),
      h("p", { class: "class-exports" }, exportButton("csv"), " ", exportButton("json")));
  }

  private async download(kind: "csv" | "json"): Promise<void> {
    const result = await this.api.download(this.classId, kind);
    if (!result.ok) {
      this.status.textContent = t("class.error", { message: result.message });
      return;
    }
    const url = URL.createObjectURL(result.value);
    const a = h("a", { href: url, download: `class-${this.classId}.${kind}` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }

  private controls(): HTMLElement {
    const filter = h("input", { type: "search", value: this.view.filter, "aria-label": t("class.filter"),
      placeholder: t("class.filter"), oninput: () => { this.view.filter = filter.value; this.drawGrid(); } });
    const stuck = h("input", { type: "checkbox", id: "stuck-only", checked: this.view.stuckOnly,
      onchange: () => { this.view.stuckOnly = stuck.checked; this.drawGrid(); } });
    return h("div", { class: "class-controls" }, filter,
      h("label", { for: "stuck-only" }, stuck, " ", t("class.stuckOnly", { n: this.board?.stuck_attempts ?? 5 })));
  }

  private sortButton(label: string, key: GridView["sort"]): HTMLElement {
    const same = JSON.stringify(key) === JSON.stringify(this.view.sort);
    return h("button", { type: "button", class: "sort", onclick: () => {
      this.view.descending = same ? !this.view.descending : key.by !== "name";
      this.view.sort = key;
      this.drawGrid();
    } }, label, same ? (this.view.descending ? " ▼" : " ▲") : "");
  }

  private drawGrid(): void {
    if (!this.board) return;
    const b = this.board;
    const ariaSort = (key: GridView["sort"]) => JSON.stringify(key) === JSON.stringify(this.view.sort)
      ? (this.view.descending ? "descending" : "ascending") : "none";
    const head = h("tr", {},
      h("th", { scope: "col", "aria-sort": ariaSort({ by: "name" }) }, this.sortButton(t("class.learner"), { by: "name" })),
      h("th", { scope: "col", "aria-sort": ariaSort({ by: "solved" }) }, this.sortButton(t("class.solved"), { by: "solved" })),
      b.exercises.map((id) => h("th", { scope: "col", "aria-sort": ariaSort({ by: "exercise", id }) },
        this.sortButton(id, { by: "exercise", id }))));
    const rows = visibleRows(b.learners, this.view);
    const table = h("table", { class: "class-grid" },
      h("caption", {}, t("class.gridCaption", { shown: rows.length, total: b.learners.length })),
      h("thead", {}, head),
      h("tbody", {}, rows.map((row) => this.gridRow(row, b.exercises))));
    clear(this.gridHost);
    this.gridHost.append(rows.length || !b.learners.length ? table : h("p", {}, t("class.noMatch")),
      b.learners.length ? "" : h("p", { class: "hint" }, t("class.empty")));
  }

  private gridRow(row: LearnerRow, exercises: string[]): HTMLElement {
    const name = h("button", { type: "button", class: "learner", onclick: () => void this.openLearner(row) }, row.display_name);
    return h("tr", { "data-learner": row.id },
      h("th", { scope: "row" }, name),
      h("td", { class: "num" }, `${row.solved}/${exercises.length}`),
      exercises.map((id) => {
        const cell = row.cells[id];
        if (!cell || cell.attempts === 0) return h("td", { class: "cell verdict-none", "data-exercise": id }, "—");
        const marks = [cell.stuck ? h("span", { class: "mark stuck" }, t("class.stuck")) : null,
                       cell.late ? h("span", { class: "mark late" }, t("class.late", { n: cell.late })) : null];
        return h("td", { class: `cell ${verdictClass(cell.best_verdict)}`, "data-exercise": id, "data-rank": cellRank(cell) },
          h("span", { class: "cell-verdict" }, cell.best_verdict ? t(`verdict.${cell.best_verdict}`) : t("class.pending")),
          h("span", { class: "attempts" }, t("class.attempts", { n: cell.attempts })),
          cell.first_accepted_at ? h("span", { class: "when" }, when(cell.first_accepted_at)) : null, marks);
      }));
  }

  private drawMistakes(): void {
    if (!this.board) return;
    const b = this.board;
    const select = h("select", { "aria-label": t("class.exercise"), onchange: () => {
      this.mistakeExercise = select.value;
      this.drawMistakes();
    } }, b.exercises.map((id) => h("option", { value: id, selected: id === this.mistakeExercise }, id)));
    clear(this.mistakesHost);
    this.mistakesHost.append(h("label", {}, t("class.exercise"), " ", select),
                             mistakeMap(b.mistakes[this.mistakeExercise]));
  }

  private async openLearner(row: LearnerRow): Promise<void> {
    clear(this.drill);
    this.drill.append(h("h3", {}, t("class.submissionsOf", { name: row.display_name })));
    await this.learnerPage(row, 0);
    this.drill.scrollIntoView({ block: "nearest" });
  }

  /** One page of the learner's submissions, then a button for the next (older) one. */
  private async learnerPage(row: LearnerRow, offset: number): Promise<void> {
    const result = await this.api.learner(this.classId, row.id, offset);
    if (!result.ok) {
      this.drill.append(h("p", {}, t("class.error", { message: result.message })));
      return;
    }
    if (!result.value.count) this.drill.append(h("p", {}, t("class.noSubmissions")));
    for (const sub of result.value.data) this.drill.append(this.submissionItem(row, sub));
    const shown = offset + result.value.data.length;
    if (shown < result.value.count) {
      const more = h("button", { type: "button", onclick: () => { more.remove(); void this.learnerPage(row, shown); } },
        t("class.older", { n: result.value.count - shown }));
      this.drill.append(more);
    }
  }

  private submissionItem(row: LearnerRow, sub: LearnerSubmission): HTMLElement {
    const body = h("div", { class: "class-submission-body" });
    const item = h("details", { class: "class-submission", "data-submission": sub.id },
      h("summary", {}, h("span", { class: `cell-verdict ${verdictClass(sub.verdict)}` },
        sub.verdict ? t(`verdict.${sub.verdict}`) : t("class.pending")), " · ", sub.exercise_id, " · ",
        when(sub.created_at), sub.late ? h("span", { class: "mark late" }, t("class.lateOne")) : null),
      sub.message ? h("p", {}, sub.message) : null,
      sub.mistakes.map((m) => h("p", { class: "mistake" }, h("strong", {}, m.mutant), ": ",
        inline(m.message[currentLang()] ?? m.message.en ?? ""))),
      body);
    item.addEventListener("toggle", async () => {
      if (!item.open || body.childElementCount) return;
      const full = await this.api.submission(this.classId, row.id, sub.id);
      body.append(full.ok ? h("pre", { class: "code" }, full.value.code)
                          : h("p", {}, t("class.error", { message: full.message })));
    });
    return item;
  }
}

export function mistakeMap(m: ExerciseMistakes | undefined): HTMLElement {
  if (!m || m.wrong === 0) return h("p", { class: "hint" }, t("class.noWrong"));
  const bar = (count: number) => h("span", { class: "bar", style: `--share:${(100 * count / m.wrong).toFixed(1)}%` });
  return h("ul", { class: "mistake-map" },
    m.known.map((k) => h("li", { "data-mutant": k.mutant },
      h("span", { class: "count" }, learners(k.learners)), bar(k.learners),
      h("span", { class: "mutant" }, k.mutant),
      h("p", { class: "message" }, inline(k.message[currentLang()] ?? k.message.en ?? "")))),
    h("li", { "data-mutant": "unknown", class: "unknown" },
      h("span", { class: "count" }, learners(m.unknown)), bar(m.unknown),
      h("span", { class: "mutant" }, t("class.unknown")),
      h("p", { class: "message" }, t("class.unknownHint"))),
    h("li", { class: "total" }, t(m.wrong === 1 ? "class.wrongTotalOne" : "class.wrongTotal", { n: m.wrong })));
}

function learners(n: number): string {
  return t(n === 1 ? "class.learnerOne" : "class.learners", { n });
}
