// The Learn tab: the course map (every lesson with its progress and its exercises'), and one
// lesson: self-test questions with answers on request, text with formulas, runnable cells, and
// the exercises that practise it. Lessons are data (web/lessons/); progress is ./progress.ts.

import type { ExerciseSummary } from "../exercises/api";
import { exerciseStatus } from "../exercises/view";
import { clear, h } from "../ui/dom";
import { currentLang, t } from "../ui/i18n";
import { cellView, outputMatches, type CellRun } from "./cell";
import { learnerKeyPanel, type LearnerKeys } from "./key";
import { LESSONS, lessonById, loadLesson, type Cell, type Lesson } from "./lessons";
import type { LessonText } from "./parse";
import { progress } from "./progress";
import "./learn.css";

export interface LearnHost {
  /** Run a cell's code in the worker; what it printed (and its error, if it failed). */
  runCell(code: string, label: string): Promise<{ output: string; error: string | null }>;
  /** Put the code in the editor and run it there (the output tabs draw its graph). */
  openInEditor(code: string, label: string): void;
  openExercise(id: string): void;
  canRun(): boolean;
  onRunnable(listener: () => void): void;
  exercises(): Promise<ExerciseSummary[]>;
  /** The judge, when the page has one: progress kept there under a learner key (./sync.ts). */
  judge?: { probed: Promise<boolean>; keys: LearnerKeys; syncNow(): Promise<void> };
}

const LESSON_KEY = "kael.learn.lesson";

let markdown: Promise<typeof import("../exercises/markdown")> | null = null;
function renderInto(el: HTMLElement, source: string): Promise<void> {
  markdown ??= import("../exercises/markdown");
  return markdown.then((m) => {
    el.innerHTML = m.renderMarkdown(source);
    for (const block of el.querySelectorAll<HTMLElement>("pre, table, .katex-display")) block.tabIndex = 0;
  });
}

export class LearnView {
  readonly element = h("section", { class: "learn" });
  private current: Lesson | null = null;
  private runs = new Map<string, CellRun>(); // this visit's outputs, kept across re-renders
  private revealed = new Set<string>();
  private catalog: ExerciseSummary[] = [];
  private cellElements: HTMLElement[] = [];
  private renderId = 0;
  private judgeReady = false;
  private keyPanelOpen = false;
  private scrollOnRender = false;

  constructor(private readonly host: LearnHost) {
    // The judge's copy merged in: the course map shows it (a lesson open picks it up when next drawn).
    progress.onChange((source) => source === "server" && !this.current && this.render());
    void host.judge?.probed.then((answered) => {
      this.judgeReady = answered;
      if (answered && !this.current) this.render();
    });
    host.onRunnable(() => this.cellElements.forEach((el) => (el as HTMLElement & { refresh?: () => void }).refresh?.()));
    void host.exercises().then((list) => {
      this.catalog = list;
      this.render();
    });
    const last = localStorage.getItem(LESSON_KEY);
    this.current = (last && lessonById(last)) || null;
    this.render();
  }

  get openLesson(): string | null {
    return this.current?.id ?? null;
  }

  open(id: string | null): void {
    this.current = (id && lessonById(id)) || null;
    if (this.current) localStorage.setItem(LESSON_KEY, this.current.id);
    else localStorage.removeItem(LESSON_KEY);
    this.scrollOnRender = true;
    this.render();
  }

  /** After opening a lesson (or the map): its top in view. The tab panel scrolls on a wide page;
   * on a phone the whole page does, and the new lesson would open where the last one was read. */
  private scrollToTop(): void {
    if (!this.scrollOnRender) return;
    this.scrollOnRender = false;
    this.element.closest(".tabpanels")?.scrollTo({ top: 0 });
    if (this.element.getBoundingClientRect().top < 0) this.element.scrollIntoView({ block: "start" });
  }

  refreshText(): void {
    this.render();
  }

  render(): void {
    this.renderId += 1;
    if (this.current) void this.renderLesson(this.current, this.renderId);
    else this.renderMap();
  }

  // ------------------------------------------------------------------ the course map

  private renderMap(): void {
    clear(this.element);
    this.cellElements = [];
    const lang = currentLang();
    const items = LESSONS.map((lesson) =>
      h(
        "li",
        {},
        h(
          "button",
          { type: "button", class: "lesson-item", "data-lesson": lesson.id, onclick: () => this.open(lesson.id) },
          h("span", { class: "lesson-title" }, `${lesson.number}. ${lesson.title[lang]}`),
          h("span", { class: "lesson-summary" }, lesson.summary[lang]),
          this.lessonProgress(lesson),
        ),
      ),
    );
    this.element.append(
      h("h2", {}, t("learn.title")),
      h("p", { class: "muted" }, t("learn.intro")),
      h("ol", { class: "lesson-list", "aria-label": t("learn.map") }, items),
    );
    const judge = this.host.judge;
    if (judge && this.judgeReady) {
      const panel = learnerKeyPanel(judge.keys, async () => {
        await judge.syncNow();
        this.render();
      }, this.keyPanelOpen);
      panel.addEventListener("toggle", () => (this.keyPanelOpen = (panel as HTMLDetailsElement).open));
      this.element.append(panel);
    }
    this.scrollToTop();
  }

  private lessonProgress(lesson: Lesson): HTMLElement {
    const cells = Object.keys(lesson.cells);
    const done = progress.cells(lesson.id);
    const ran = cells.filter((name) => done[name] === "matched").length;
    const statuses = lesson.exercises.map((id) => exerciseStatus(id));
    const passed = statuses.filter((s) => s === "passed" || s === "accepted").length;
    const accepted = statuses.filter((s) => s === "accepted").length;
    const read = progress.read(lesson.id);
    return h(
      "span",
      { class: "lesson-progress", "data-testid": `progress-${lesson.id}` },
      h("span", { class: `badge ${read ? "done" : ""}`, "data-progress": "read" }, read ? t("learn.progress.read") : t("learn.progress.unread")),
      h("span", { class: `badge ${ran === cells.length ? "done" : ""}`, "data-progress": "cells" }, t("learn.progress.cells", { done: ran, total: cells.length })),
      h("span", { class: `badge ${passed === statuses.length ? "done" : ""}`, "data-progress": "passed" }, t("learn.progress.passed", { done: passed, total: statuses.length })),
      h("span", { class: `badge ${accepted === statuses.length ? "done" : ""}`, "data-progress": "accepted" }, t("learn.progress.accepted", { done: accepted, total: statuses.length })),
    );
  }

  // ------------------------------------------------------------------ one lesson

  private async renderLesson(lesson: Lesson, id: number): Promise<void> {
    const lang = currentLang();
    const { text, cells } = await loadLesson(lesson, lang);
    if (id !== this.renderId) return;
    clear(this.element);
    this.cellElements = [];
    const body = h("div", { class: "lesson-body" });
    const typeset: Promise<void>[] = [];
    let index = 0;
    for (const part of text.parts) {
      if (part.kind === "text") {
        const el = h("div", { class: "markdown" });
        typeset.push(renderInto(el, part.text));
        body.append(el);
      } else {
        const cell = cells.get(part.name);
        if (!cell) continue;
        index += 1;
        const key = `${lesson.id}/${cell.name}`;
        const el = cellView(cell, index, this.runs.get(key), progress.cells(lesson.id)[cell.name], {
          run: (c) => this.runCell(lesson, c),
          open: (c) => this.host.openInEditor(c.show ? `${c.code.trimEnd()}\n\n# ${t("learn.cell.drawn")}\nimport kael.viz\n${c.show}\n` : c.code, `${lesson.title[lang]} · ${c.name}`),
          canRun: () => this.host.canRun(),
        });
        this.cellElements.push(el);
        body.append(el);
      }
    }
    const position = LESSONS.indexOf(lesson);
    this.element.append(
      h("button", { type: "button", class: "link back", onclick: () => this.open(null) }, `← ${t("learn.back")}`),
      h("p", { class: "muted small lesson-number" }, t("learn.lesson.n", { n: lesson.number, total: LESSONS.length })),
      h("h2", { class: "lesson-heading" }, lesson.title[lang]),
      this.questions(lesson, text, typeset),
      body,
      this.practice(lesson),
      this.footer(lesson, LESSONS[position + 1]),
    );
    this.scrollToTop();
    await Promise.all(typeset);
  }

  private questions(lesson: Lesson, text: LessonText, typeset: Promise<void>[]): HTMLElement {
    const box = h("section", { class: "questions", "aria-labelledby": "learn-questions" }, h("h3", { id: "learn-questions" }, t("learn.questions")));
    box.append(h("p", { class: "muted small" }, t("learn.questions.intro")));
    const list = h("ol", { class: "question-list" });
    text.questions.forEach((question, i) => {
      const key = `${lesson.id}/${i}`;
      const q = h("div", { class: "markdown question-text" });
      const a = h("div", { class: "markdown answer", id: `answer-${lesson.id}-${i}`, hidden: !this.revealed.has(key) });
      typeset.push(renderInto(q, question.q), renderInto(a, question.a));
      const button = h("button", { type: "button", class: "link answer-toggle", "aria-controls": a.id });
      const label = () => {
        const open = !a.hidden;
        button.textContent = open ? t("learn.answer.hide") : t("learn.answer.show");
        button.setAttribute("aria-expanded", String(open));
      };
      button.addEventListener("click", () => {
        a.hidden = !a.hidden;
        if (a.hidden) this.revealed.delete(key);
        else this.revealed.add(key);
        label();
      });
      label();
      list.append(h("li", { class: "question" }, q, button, a));
    });
    box.append(list);
    return box;
  }

  private practice(lesson: Lesson): HTMLElement {
    const lang = currentLang();
    const box = h("section", { class: "practice" }, h("h3", {}, t("learn.exercises")), h("p", { class: "muted small" }, t("learn.exercises.intro")));
    const items = lesson.exercises.map((id) => {
      const summary = this.catalog.find((e) => e.id === id);
      const title = summary ? `${String(summary.number).padStart(2, "0")}. ${(lang === "zh" ? summary.titles?.zh : summary.titles?.en) ?? summary.title}` : id;
      const status = exerciseStatus(id);
      return h(
        "li",
        {},
        h(
          "button",
          { type: "button", class: "exercise-link", "data-exercise": id, onclick: () => this.host.openExercise(id) },
          h("span", {}, title),
          h("span", { class: `badge ex-status ${status}` }, t(`exercises.status.${status}`)),
        ),
      );
    });
    box.append(h("ul", { class: "practice-list" }, items));
    return box;
  }

  private footer(lesson: Lesson, next: Lesson | undefined): HTMLElement {
    const read = progress.read(lesson.id);
    const mark = h(
      "button",
      { type: "button", class: read ? "mark-read done" : "mark-read primary", "aria-pressed": String(read), onclick: () => {
        progress.setRead(lesson.id, !progress.read(lesson.id));
        this.render();
      } },
      read ? t("learn.read.done") : t("learn.read.mark"),
    );
    const nextButton = next
      ? h("button", { type: "button", class: "link next-lesson", onclick: () => this.open(next.id) }, t("learn.next", { title: next.title[currentLang()] }))
      : null;
    return h("div", { class: "lesson-footer" }, mark, nextButton);
  }

  private async runCell(lesson: Lesson, cell: Cell): Promise<CellRun> {
    const { output, error } = await this.host.runCell(cell.code, `${lesson.title[currentLang()]} · ${cell.name}`);
    const text = error ? `${output}${output && !output.endsWith("\n") ? "\n" : ""}${error}` : output;
    const run: CellRun = { output: text, result: !error && outputMatches(output, cell.expected) ? "matched" : "differs" };
    this.runs.set(`${lesson.id}/${cell.name}`, run);
    progress.setCell(lesson.id, cell.name, run.result);
    return run;
  }
}
