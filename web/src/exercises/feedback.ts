// Feedback that names the mistake, under a report: the known mistake its outcomes match (the
// harness's `mistakes`, authored text in English and Chinese) and, for the engine exercises, the
// trace view (`trace_diff`): your run of the first failing public case beside the reference's,
// step by step, the first step that differs marked. Both come from the report as the harness
// (judge server or the browser's own run) built it; nothing here is computed from the tests.

import { h } from "../ui/dom";
import { currentLang } from "../ui/i18n";
import type { TestReport } from "../worker/protocol";
import "./feedback.css";

interface Mistake {
  mutant: string;
  message: { en: string; zh: string };
}

interface Values {
  shape?: number[];
  values?: (number | string | boolean | null)[];
  more?: number;
}

interface Send {
  to: string | null;
  grad?: Values | null;
  count?: [number | null, number | null];
}

interface Step {
  node?: string | null;
  grad?: Values | null;
  leaf?: boolean;
  sends?: Send[];
  count?: number | null;
  ready?: string[];
  order?: number;
}

interface TraceDiff {
  case: string;
  mode: string;
  step: number | null;
  agree: number;
  yours_steps: Step[];
  reference_steps: Step[];
  yours_error: { type: string; message: string } | null;
  reference_error: { type: string; message: string } | null;
}

const TEXT = {
  en: {
    one: "This looks like a known mistake",
    several: "It may be one of these known mistakes",
    trace: (name: string) => `Trace of ${name}: your code beside the reference`,
    yours: "yours",
    reference: "reference",
    agree: "the traces agree step by step; the difference is in what the test checks afterwards",
    differs: (n: number) => `step ${n} is the first that differs`,
    raised: "your run raised",
    refRaised: "the reference raised",
    leaf: "leaf .grad",
    count: "count",
    ready: "ready",
  },
  zh: {
    one: "这看起来是一个常见错误",
    several: "它可能是下面某个常见错误",
    trace: (name: string) => `${name} 的追踪：你的代码与参考实现并排`,
    yours: "你的",
    reference: "参考",
    agree: "两次追踪逐步一致；差别在测试之后检查的内容里",
    differs: (n: number) => `第 ${n} 步是第一个不同的步骤`,
    raised: "你的运行抛出了",
    refRaised: "参考实现抛出了",
    leaf: "叶子 .grad",
    count: "计数",
    ready: "就绪栈",
  },
};

/** The feedback blocks for a report (none when it has neither field). */
export function renderFeedback(report: TestReport): HTMLElement[] {
  const out: HTMLElement[] = [];
  const mistakes = Array.isArray(report.mistakes) ? (report.mistakes as Mistake[]) : [];
  if (mistakes.length > 0) out.push(renderMistakes(mistakes));
  const trace = report.trace_diff as TraceDiff | null | undefined;
  if (trace && Array.isArray(trace.yours_steps) && Array.isArray(trace.reference_steps)) out.push(renderTrace(trace));
  return out;
}

function text() {
  return TEXT[currentLang()] ?? TEXT.en;
}

/** Inline `code` and **bold** of the authored messages, as elements (never as HTML). */
function inline(message: string): (Node | string)[] {
  const parts: (Node | string)[] = [];
  for (const [i, chunk] of message.split("`").entries()) {
    if (i % 2 === 1) {
      parts.push(h("code", {}, chunk));
      continue;
    }
    for (const [j, piece] of chunk.split("**").entries()) parts.push(j % 2 === 1 ? h("strong", {}, piece) : piece);
  }
  return parts;
}

function renderMistakes(mistakes: Mistake[]): HTMLElement {
  const tx = text();
  const lang = currentLang();
  return h(
    "div",
    { class: "mistakes", "data-testid": "mistakes", role: "note" },
    h("p", { class: "mistakes-title" }, mistakes.length === 1 ? tx.one : tx.several),
    h("ul", {}, mistakes.map((m) => h("li", { "data-mutant": m.mutant }, inline(m.message[lang] ?? m.message.en)))),
  );
}

function values(v: Values | null | undefined): string {
  if (!v) return "None";
  if (!Array.isArray(v.values)) return String(v);
  const nums = v.values.map((x) => (typeof x === "number" ? Number(x.toPrecision(4)).toString() : String(x)));
  return `[${nums.join(", ")}${v.more ? `, … +${v.more}` : ""}]`;
}

function stepLines(step: Step | undefined): string[] {
  if (!step) return [];
  const tx = text();
  const lines: string[] = [];
  if (step.grad !== undefined) lines.push(`${step.leaf ? tx.leaf : "g"} ${values(step.grad)}`);
  if (step.count !== undefined && step.count !== null) lines.push(`${tx.count} ${step.count}`);
  for (const s of step.sends ?? []) {
    lines.push(s.count ? `→ ${s.to}: ${s.count[0]} → ${s.count[1]}` : `→ ${s.to}: ${values(s.grad)}`);
  }
  if (step.ready) lines.push(`${tx.ready} [${step.ready.join(", ")}]`);
  return lines;
}

function cell(step: Step | undefined, kind: string): HTMLElement {
  if (!step) return h("td", { class: `trace-cell ${kind} missing` }, "—");
  return h(
    "td",
    { class: `trace-cell ${kind}` },
    h("code", { class: "trace-node" }, String(step.node ?? "")),
    ...stepLines(step).map((line) => h("div", { class: "trace-detail" }, line)),
  );
}

function renderTrace(d: TraceDiff): HTMLElement {
  const tx = text();
  const rows: HTMLElement[] = [];
  const n = Math.max(d.yours_steps.length, d.reference_steps.length);
  for (let i = 0; i < n; i++) {
    const diverges = d.step !== null && i + 1 === d.step;
    const after = d.step !== null && i + 1 > d.step;
    rows.push(
      h(
        "tr",
        { class: diverges ? "diverges" : after ? "after" : "agrees", "data-step": String(i + 1) },
        h("th", { scope: "row" }, String(i + 1)),
        cell(d.yours_steps[i], "yours"),
        cell(d.reference_steps[i], "reference"),
      ),
    );
  }
  const errors = [
    d.yours_error ? h("p", { class: "error" }, `${tx.raised} ${d.yours_error.type}: ${d.yours_error.message}`) : null,
    d.reference_error ? h("p", { class: "muted" }, `${tx.refRaised} ${d.reference_error.type}: ${d.reference_error.message}`) : null,
  ];
  return h(
    "div",
    { class: "trace-diff", "data-testid": "trace-diff" },
    h("p", { class: "trace-title" }, tx.trace(d.case)),
    h("p", { class: d.step === null ? "muted" : "trace-first" }, d.step === null ? tx.agree : tx.differs(d.step)),
    h(
      "div",
      { class: "trace-scroll", tabindex: "0" },
      h(
        "table",
        { class: "trace-table" },
        h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, tx.yours), h("th", {}, tx.reference))),
        h("tbody", {}, rows),
      ),
    ),
    ...errors,
  );
}
