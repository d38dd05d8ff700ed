// The Exercises panel: the list (title, difficulty, topics, your status), one exercise's
// statement and hints, Run tests in the browser, Submit to the judge with its verdict, per-test
// report and your history. Drafts and statuses live in localStorage.

import { hintsView } from "../learn/hints";
import { clear, h } from "../ui/dom";
import { currentLang, t } from "../ui/i18n";
import { rovingFocus } from "../ui/roving";
import { deepestLine, renderTraceback } from "../ui/traceback";
import type { TestCaseReport, TestReport } from "../worker/protocol";
import type { ExerciseDetail, ExerciseSource, ExerciseSummary, Submission } from "./api";
import { renderFeedback } from "./feedback";
import { topicList } from "./topics";

/** Markdown, KaTeX and DOMPurify load with the first statement shown, not with the page. */
/** Why Submit failed, in plain words: no network at all is said as such. */
function submitError(failure: { message: string; unreachable?: boolean }): string {
  return failure.unreachable ? t("exercises.judge.unreachable") : t("exercises.submit.failed", { message: failure.message });
}

type Markdown = typeof import("./markdown");
let markdown: Promise<Markdown> | null = null;
let loadedMarkdown: Markdown | null = null;

/** Starts loading the renderer (a pointer over the list or a focus in it says a statement is next). */
function loadMarkdown(): Promise<Markdown> {
  markdown ??= import("./markdown").then((m) => (loadedMarkdown = m));
  return markdown;
}

function fill(el: HTMLElement, m: Markdown, source: string): void {
  el.innerHTML = m.renderMarkdown(forTheBrowser(source));
  el.removeAttribute("aria-busy");
  // A code block or table that scrolls sideways must be reachable by keyboard.
  for (const block of el.querySelectorAll<HTMLElement>("pre, table")) block.tabIndex = 0;
}

/** The statement at once once the renderer is here; until then a line that says it is coming
 * (the first statement was blank for a second while KaTeX loaded). */
function renderInto(el: HTMLElement, source: string): void {
  if (loadedMarkdown) return fill(el, loadedMarkdown, source);
  el.setAttribute("aria-busy", "true");
  el.replaceChildren(h("p", { class: "muted statement-loading" }, t("exercises.statement.loading")));
  void loadMarkdown().then((m) => fill(el, m, source));
}

/** Statements end with how to run the tests from a shell; the page has its own buttons. */
export function forTheBrowser(markdownText: string): string {
  return markdownText
    .split(/\n\s*\n/)
    .filter((paragraph) => !/exercises\/judge\.py\b/.test(paragraph))
    .join("\n\n");
}

/** Hints files open with their title ("# Hints"), which the <summary> already says. */
export function withoutTitle(markdownText: string): string {
  return markdownText.replace(/^\s*#\s[^\n]*\n/, "");
}

export type ExerciseStatus = "accepted" | "passed" | "attempted" | "new";

export interface ExerciseHost {
  /** Put this exercise's draft (or starter) in the editor. */
  open(detail: ExerciseDetail): void;
  code(): string;
  runTests(detail: ExerciseDetail): Promise<{ report: TestReport | null; error: string | null }>;
  canRun(): boolean;
  onRunnable(listener: () => void): void;
  /** The exercise was closed (back to the list). */
  closed(): void;
  /** Move the editor's cursor to this line of the solution (1-based). */
  showLine(line: number): void;
  /** Mark the line a report points at in the editor, or clear the mark. */
  markLine(line: number | null): void;
  /** Put an earlier submission's code in the editor as one edit the learner can undo. */
  restore(code: string): void;
}

const STATUS_KEY = (id: string) => `kael.status.${id}`;
const POLL_MS = 500;
const POLL_LIMIT_MS = 180_000;

export function exerciseStatus(id: string): ExerciseStatus {
  const value = localStorage.getItem(STATUS_KEY(id));
  return value === "accepted" || value === "passed" || value === "attempted" ? value : "new";
}

function raiseStatus(id: string, next: ExerciseStatus): void {
  const order: ExerciseStatus[] = ["new", "attempted", "passed", "accepted"];
  if (order.indexOf(next) > order.indexOf(exerciseStatus(id))) localStorage.setItem(STATUS_KEY(id), next);
}

export class ExercisesView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private list: ExerciseSummary[] | null = null;
  private listError: string | null = null;
  private current: ExerciseDetail | null = null;
  private report: {
    kind: "local" | "server";
    report: TestReport | null;
    error: string | null;
    pending?: string;
    restored?: string; // the time of the submission whose code was put back in the editor
  } | null = null;
  private shownSubmission: string | null = null;
  private history: Submission[] | null = null;
  private busy = false;
  private runButton: HTMLButtonElement | null = null;
  private submitButton: HTMLButtonElement | null = null;
  private reportSlot: HTMLElement = h("div");
  private historySlot: HTMLElement = h("div");

  constructor(
    private readonly source: ExerciseSource,
    private readonly host: ExerciseHost,
  ) {
    this.body = h("div", { class: "exercises-body" });
    this.element = h("section", { class: "exercises" }, this.body);
    host.onRunnable(() => this.updateButtons());
  }

  get openExercise(): ExerciseDetail | null {
    return this.current;
  }

  async load(): Promise<void> {
    this.render();
    const result = await this.source.list();
    if (result.ok) this.list = result.value;
    else this.listError = result.message;
    this.render();
  }

  async openById(id: string): Promise<void> {
    const summary = this.list?.find((e) => e.id === id);
    if (summary && this.current?.id !== id) this.renderOpening(summary);
    void loadMarkdown();
    const result = await this.source.detail(id);
    if (!result.ok) {
      this.listError = result.message;
      this.render();
      return;
    }
    this.current = result.value;
    this.report = null;
    this.history = null;
    this.host.open(result.value);
    this.render();
    this.showTop();
    if (this.source.server) void this.loadHistory();
  }

  /** While the exercise is fetched: its title and a line that says the statement is coming. */
  private renderOpening(e: ExerciseSummary): void {
    clear(this.body);
    this.body.append(
      // Not .exercise-heading: that one says the exercise is open (its code in the editor).
      h("h2", { class: "exercise-opening" }, `${String(e.number).padStart(2, "0")}. ${this.title(e)}`),
      h("p", { class: "muted statement-loading", role: "status" }, t("exercises.statement.loading")),
    );
  }

  /** A newly opened exercise is read from its top: the pane scrolls back up and, where the page
   * itself scrolls (a phone), the page comes to the statement's heading. */
  private showTop(): void {
    const scroller = this.element.closest<HTMLElement>(".tabpanels");
    if (scroller) scroller.scrollTop = 0;
    const page = document.scrollingElement;
    if (page && page.scrollHeight > innerHeight + 1) this.element.closest(".sidebar")?.scrollIntoView({ block: "start" });
  }

  closeExercise(): void {
    this.current = null;
    this.render();
    this.host.closed();
  }

  refreshText(): void {
    this.render();
  }

  // ------------------------------------------------------------------ rendering

  private render(): void {
    clear(this.body);
    if (this.current) this.renderDetail(this.current);
    else this.renderList();
  }

  private title(e: ExerciseSummary): string {
    return (currentLang() === "zh" ? e.titles?.zh : e.titles?.en) ?? e.title;
  }

  private difficulty(e: ExerciseSummary): HTMLElement {
    return h("span", { class: `badge difficulty ${e.difficulty}` }, t(`exercises.difficulty.${e.difficulty}`));
  }

  private renderList(): void {
    this.body.append(h("h2", {}, t("exercises.title")));
    if (this.listError) this.body.append(h("p", { class: "error" }, this.listError));
    if (!this.list) {
      this.body.append(h("p", { class: "muted" }, t("exercises.loading")));
      return;
    }
    if (!this.list.length) {
      this.body.append(h("p", { class: "muted" }, t("exercises.none")));
      return;
    }
    const items = this.list.map((e) => {
      const status = exerciseStatus(e.id);
      return h(
        "li",
        {},
        h(
          "button",
          { type: "button", class: "exercise-item", "data-id": e.id, onclick: () => void this.openById(e.id) },
          h("span", { class: "exercise-title" }, `${String(e.number).padStart(2, "0")}. ${this.title(e)}`),
          h(
            "span",
            { class: "exercise-meta" },
            this.difficulty(e),
            h("span", { class: "topics" }, topicList(e.topics)),
            h("span", { class: `badge ex-status ${status}` }, t(`exercises.status.${status}`)),
          ),
        ),
      );
    });
    const list = h("ul", { class: "exercise-list" }, items);
    list.addEventListener("pointerover", () => void loadMarkdown(), { once: true });
    list.addEventListener("focusin", () => void loadMarkdown(), { once: true });
    this.body.append(list);
    rovingFocus(list, ".exercise-item"); // 22 exercises are one Tab stop, arrows inside
  }

  private renderDetail(e: ExerciseDetail): void {
    const lang = currentLang();
    const statement = h("div", { class: "statement markdown" });
    renderInto(statement, (lang === "zh" ? e.statement.zh : e.statement.en) ?? e.statement.en);
    // One hint at a time, each on request; how many were shown is kept in the learner's progress.
    const hints = hintsView(e.id, (lang === "zh" ? e.hints.zh : e.hints.en) ?? e.hints.en ?? "", renderInto);

    this.runButton = h(
      "button",
      { type: "button", class: "primary", title: t("exercises.runtests.title"), onclick: () => void this.runTests() },
      t("exercises.runtests"),
    );
    const actions = h("div", { class: "exercise-actions" }, this.runButton);
    if (this.source.server) {
      this.submitButton = h(
        "button",
        { type: "button", class: "submit", title: t("exercises.submit.title"), onclick: () => void this.submit() },
        t("exercises.submit"),
      );
      actions.append(this.submitButton);
    } else {
      this.submitButton = null;
    }
    actions.append(
      h(
        "button",
        {
          type: "button",
          class: "link",
          onclick: () => {
            if (confirm(t("exercises.reset.confirm"))) {
              localStorage.removeItem(`kael.draft.${e.id}`);
              this.host.open(e);
            }
          },
        },
        t("exercises.reset"),
      ),
    );

    this.body.append(
      h("button", { type: "button", class: "link back", onclick: () => this.closeExercise() }, `← ${t("exercises.back")}`),
      h("h2", { class: "exercise-heading" }, `${String(e.number).padStart(2, "0")}. ${this.title(e)}`),
      h(
        "p",
        { class: "exercise-meta" },
        this.difficulty(e),
        h("span", { class: "topics" }, topicList(e.topics)),
        h("span", { class: "muted" }, t("exercises.limits", { time: e.time_limit_s, memory: e.memory_mb })),
      ),
      actions,
      ...(this.source.server ? [] : [h("p", { class: "muted small" }, t("exercises.static"))]),
      (this.reportSlot = h("div", { class: "report-slot" })),
      statement,
      hints,
      (this.historySlot = h("div", { class: "history-slot" })),
    );
    this.updateReport();
    this.updateHistory();
    this.updateButtons();
  }

  /** Redraw only the report (a poll must not re-typeset the statement or lose the scroll). */
  private updateReport(): void {
    clear(this.reportSlot);
    const report = this.renderReport();
    if (report) this.reportSlot.append(report);
    this.updateButtons();
  }

  private updateHistory(): void {
    clear(this.historySlot);
    if (this.source.server) this.historySlot.append(this.renderHistory());
  }

  private renderReport(): HTMLElement | null {
    const r = this.report;
    if (!r) return null;
    const box = h("section", { class: "report", "aria-live": "polite", "data-testid": `report-${r.kind}` });
    box.append(h("h3", {}, r.kind === "local" ? t("exercises.report.local") : t("exercises.report.server")));
    if (r.pending) {
      box.append(h("p", { class: "verdict pending" }, r.pending));
      return box;
    }
    if (r.restored) box.append(h("p", { class: "note info restored" }, t("exercises.restored", { time: r.restored })));
    if (r.error) {
      box.append(this.errorText(r.error));
      return box;
    }
    const report = r.report;
    if (!report) return box;
    const verdictClass = report.verdict === "Accepted" ? "accepted" : "rejected";
    box.append(h("p", { class: `verdict ${verdictClass}`, "data-verdict": report.verdict }, t(`verdict.${report.verdict}`)));
    if (report.syntax_error) {
      // The one place a syntax error is said: its line links to the editor; no "0 of 0 passed".
      const se = report.syntax_error;
      box.append(
        h(
          "div",
          { class: "error syntax-error" },
          this.lineLink(se.line),
          `, ${t("exercises.column", { column: se.column })}: ${se.message}\n${se.text}`,
        ),
      );
      return box;
    }
    if (report.message) box.append(h("p", { class: "verdict-message" }, report.message));
    if (report.summary && report.summary.total > 0 && report.verdict !== "Accepted") {
      box.append(h("p", { class: "muted" }, t("exercises.report.summary", report.summary)));
    }
    box.append(h("ul", { class: "tests" }, report.tests.map((test) => this.renderTest(test))));
    const hidden = report.hidden;
    if (hidden && hidden.total > 0) {
      const key = hidden.first_failed ? "exercises.report.hiddenFailed" : "exercises.report.hidden";
      box.append(h("p", { class: "muted hidden-summary" }, t(key, { passed: hidden.passed, total: hidden.total, name: hidden.first_failed ?? "" })));
    }
    box.append(...renderFeedback(report)); // the known mistake and the trace view, when present
    return box;
  }

  private renderTest(test: TestCaseReport): HTMLElement {
    const failed = !!test.message && test.status !== "passed";
    const line = failed && this.current ? deepestLine(test.message!, this.current.solution_file) : null;
    let message: HTMLElement | null = null;
    if (failed && this.current) {
      message = renderTraceback(test.message!, this.current.solution_file, (n) => this.host.showLine(n));
      message.classList.add("test-message");
      message.tabIndex = 0; // it scrolls: reachable by keyboard
    }
    return h(
      "li",
      { class: `test ${test.status}` },
      h("span", { class: `badge ${test.status}` }, t(`test.${test.status}`)),
      " ",
      h("code", {}, test.name),
      test.hidden ? h("span", { class: "muted" }, ` (${t("exercises.hidden")})`) : null,
      test.duration_ms !== null && test.duration_ms !== undefined ? h("span", { class: "muted" }, ` ${test.duration_ms.toFixed(1)} ms`) : null,
      line !== null ? [" · ", this.lineLink(line)] : null,
      test.description ? h("div", { class: "muted" }, test.description) : null,
      message,
    );
  }

  /** "line N", a button that moves the editor's cursor to line N of the solution. */
  private lineLink(line: number): HTMLElement {
    return h(
      "button",
      { type: "button", class: "line-link", "data-line": String(line), "aria-label": t("console.goto", { line }), onclick: () => this.host.showLine(line) },
      t("console.line", { line }),
    );
  }

  /** An error text (a traceback when the harness or the judge failed), its frames folded. */
  private errorText(text: string): HTMLElement {
    if (!this.current || !text.includes("Traceback")) return h("pre", { class: "error", tabindex: "0" }, text);
    const block = renderTraceback(text, this.current.solution_file, (n) => this.host.showLine(n));
    block.classList.add("error");
    return block;
  }

  /** The line the report points at: the syntax error's, else the first failing test's. */
  private reportLine(): number | null {
    const report = this.report?.report;
    if (!report || !this.current) return null;
    if (report.syntax_error) return report.syntax_error.line;
    for (const test of report.tests) {
      if (test.status === "passed" || !test.message) continue;
      const line = deepestLine(test.message, this.current.solution_file);
      if (line !== null) return line;
    }
    return null;
  }

  /** A final report: mark its line in the editor and bring it into view. */
  private reveal(): void {
    this.host.markLine(this.reportLine());
    // Its headline must be in view: scroll only when the top is out of the pane's visible part.
    const scroller = this.element.closest(".tabpanels") ?? document.documentElement;
    const top = this.reportSlot.getBoundingClientRect().top;
    const view = scroller.getBoundingClientRect();
    if (top < view.top || top > view.bottom - 40) this.reportSlot.scrollIntoView({ block: "start" });
  }

  private renderHistory(): HTMLElement {
    const box = h("section", { class: "history" }, h("h3", {}, t("exercises.history")));
    if (!this.history || !this.history.length) {
      box.append(h("p", { class: "muted" }, t("exercises.history.none")));
      return box;
    }
    box.append(
      h(
        "ol",
        { class: "history-list" },
        this.history.map((s) =>
          h(
            "li",
            {},
            h(
              "button",
              {
                type: "button",
                class: "link",
                "data-submission": s.id,
                "aria-current": this.shownSubmission === s.id ? "true" : undefined,
                title: t("exercises.history.restore"),
                onclick: () => void this.showSubmission(s.id),
              },
              `${s.created_at ? new Date(s.created_at).toLocaleString() : s.id.slice(0, 8)} · `,
              s.verdict ? t(`verdict.${s.verdict}`) : t(`exercises.status.${s.status}`),
            ),
          ),
        ),
      ),
    );
    return box;
  }

  private updateButtons(): void {
    const ready = this.host.canRun() && !this.busy;
    if (this.runButton) this.runButton.disabled = !ready;
    if (this.submitButton) this.submitButton.disabled = this.busy;
  }

  // ------------------------------------------------------------------ actions

  private async runTests(): Promise<void> {
    const e = this.current;
    if (!e || this.busy) return;
    this.busy = true;
    this.report = { kind: "local", report: null, error: null, pending: `${t("status.running")}` };
    this.updateReport();
    const outcome = await this.host.runTests(e);
    this.busy = false;
    this.report = { kind: "local", report: outcome.report, error: outcome.error };
    if (outcome.report) raiseStatus(e.id, outcome.report.verdict === "Accepted" ? "passed" : "attempted");
    if (this.current?.id === e.id) {
      this.updateReport();
      this.reveal();
    }
  }

  private async submit(): Promise<void> {
    const e = this.current;
    if (!e || this.busy) return;
    this.busy = true;
    this.report = { kind: "server", report: null, error: null, pending: t("exercises.submitting") };
    this.updateReport();
    const created = await this.source.submit(e.id, this.host.code());
    if (!created.ok) {
      this.busy = false;
      this.report = { kind: "server", report: null, error: submitError(created) };
      this.updateReport();
      return;
    }
    raiseStatus(e.id, "attempted");
    void this.loadHistory();
    const final = await this.poll(created.value.id, (s) => {
      this.report = { kind: "server", report: null, error: null, pending: `${t("exercises.submitting")} (${t(`exercises.status.${s.status}`)})` };
      if (this.current?.id === e.id) this.updateReport();
    });
    this.busy = false;
    if (final.ok) {
      const s = final.value;
      if (s.status === "error") this.report = { kind: "server", report: s.report, error: s.error ?? "grading failed" };
      else if (s.report || s.verdict) this.report = { kind: "server", report: s.report ?? { verdict: s.verdict!, message: "", tests: [] }, error: null };
      else this.report = { kind: "server", report: null, error: "grading gave no verdict" };
      if (s.verdict === "Accepted") raiseStatus(e.id, "accepted");
    } else {
      this.report = { kind: "server", report: null, error: submitError(final) };
    }
    if (this.current?.id === e.id) {
      this.updateReport();
      this.reveal();
    }
    void this.loadHistory();
  }

  private async poll(id: string, onUpdate: (s: Submission) => void) {
    const started = performance.now();
    for (;;) {
      const result = await this.source.submission(id);
      if (!result.ok) return result;
      if (result.value.status === "done" || result.value.status === "error") return result;
      onUpdate(result.value);
      if (performance.now() - started > POLL_LIMIT_MS) return { ok: false as const, message: "the judge did not answer in time" };
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  private async loadHistory(): Promise<void> {
    const e = this.current;
    if (!e) return;
    const result = await this.source.history(e.id);
    if (result.ok && this.current?.id === e.id) {
      this.history = result.value;
      this.updateHistory();
    }
  }

  /** An older submission: its report, and its code back in the editor (Ctrl+Z undoes that). */
  private async showSubmission(id: string): Promise<void> {
    const e = this.current;
    const result = await this.source.submission(id);
    if (!result.ok || this.current !== e) return;
    const s = result.value;
    const time = s.created_at ? new Date(s.created_at).toLocaleString() : s.id.slice(0, 8);
    const restored = typeof s.code === "string" && s.code !== this.host.code();
    if (restored) this.host.restore(s.code!);
    this.shownSubmission = id;
    this.report = {
      kind: "server",
      report: s.report,
      error: s.status === "error" ? s.error : null,
      restored: typeof s.code === "string" ? time : undefined,
    };
    this.updateReport();
    this.updateHistory();
    this.reveal();
  }
}
