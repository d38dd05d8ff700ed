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

type Answer = number | string | boolean | null;

/** The deep-chain walk: what the learner's functions gave for a node (or what they raised). */
interface Answers {
  count_nodes?: Answer;
  depth?: Answer;
}

interface Step extends Answers {
  node?: string | null;
  grad?: Values | null;
  leaf?: boolean;
  sends?: Send[];
  count?: number | null;
  ready?: string[];
  order?: number;
  of?: number;
  children?: (Answers & { node?: string | null })[];
}

const WALKED = ["count_nodes", "depth"] as const;

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
    position: "position",
    child: "child",
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
    position: "位置",
    child: "子节点",
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
export function inline(message: string): (Node | string)[] {
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
  if (step.order !== undefined) lines.push(`${tx.position} ${step.order}${step.of !== undefined ? ` / ${step.of}` : ""}`);
  for (const c of step.children ?? []) {
    const answers = WALKED.filter((name) => c[name] !== undefined).map((name) => `${name} ${String(c[name])}`);
    lines.push(`${tx.child} ${c.node ?? ""}${answers.length ? `: ${answers.join(", ")}` : ""}`);
  }
  for (const name of WALKED) if (step[name] !== undefined) lines.push(`${name}() ${String(step[name])}`);
  if (step.grad !== undefined) lines.push(`${step.leaf ? tx.leaf : "g"} ${values(step.grad)}`);
  if (step.count !== undefined && step.count !== null) lines.push(`${tx.count} ${step.count}`);
  for (const s of step.sends ?? []) {
    lines.push(s.count ? `→ ${s.to}: ${s.count[0]} → ${s.count[1]}` : `→ ${s.to}: ${values(s.grad)}`);
  }
  if (step.ready) lines.push(`${tx.ready} [${step.ready.join(", ")}]`);
  return lines;
}

/** One side of a step; on the step that diverges, the lines the other side lacks are marked. */
function cell(step: Step | undefined, kind: string, other?: Step): HTMLElement {
  if (!step) return h("td", { class: `trace-cell ${kind} missing` }, "—");
  const theirs = other ? new Set(stepLines(other)) : null;
  return h(
    "td",
    { class: `trace-cell ${kind}` },
    h("code", { class: "trace-node" }, String(step.node ?? "")),
    ...stepLines(step).map((line) =>
      h("div", { class: theirs && !theirs.has(line) ? "trace-detail differs" : "trace-detail" }, line),
    ),
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
        cell(d.yours_steps[i], "yours", diverges ? d.reference_steps[i] : undefined),
        cell(d.reference_steps[i], "reference", diverges ? d.yours_steps[i] : undefined),
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
