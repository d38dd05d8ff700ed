// The forward half of the stepper: which boxes of the graph exist after each recorded line, which
// ones that line made, the tensor variables it left, and the step table. It reads only the
// forward recording (kael.viz.forward) and the graph's `recorded` marks; the Trace view draws it
// and then replays the backward pass on the same graph.

import type { Highlight } from "../graph/canvas";
import type { LayoutItem } from "../graph/layout";
import type { GraphData } from "../graph/types";
import { formatShape } from "../graph/types";
import { formatBytes, h } from "../ui/dom";
import type { LineNote } from "../editor/editor";
import type { ForwardData, ForwardStep } from "./types";
import "./stepper.css";
import { sw } from "./words";

/** The graph node ids of one drawn box (a group stands for all of its nodes). */
export function nodesOfItem(item: LayoutItem): string[] {
  if (item.node) return [item.node.id];
  if (item.tensor) return item.tensor.node ? [item.tensor.node] : [];
  if (item.constOf) return [item.constOf.node.id];
  return item.group?.nodes ?? [];
}

export class ForwardPhase {
  private readonly stepOf = new Map<string, number>(); // node id -> the step that recorded it
  private readonly idOfOrder = new Map<number, string>(); // recorded order -> node id
  private readonly labels: Map<string, string>;

  constructor(
    readonly data: ForwardData,
    readonly graph: GraphData | null,
    private readonly source: string[], // the program's lines, as run
  ) {
    for (const n of graph?.nodes ?? []) {
      if (!n.recorded) continue;
      this.stepOf.set(n.id, n.recorded.step);
      this.idOfOrder.set(n.recorded.order, n.id);
    }
    this.labels = new Map((graph?.nodes ?? []).map((n) => [n.id, n.label]));
  }

  get length(): number {
    return this.data.steps.length;
  }

  step(index: number): ForwardStep {
    return this.data.steps[index];
  }

  /** The line that recorded node `id`, if this recording saw it. */
  lineOf(id: string): number | null {
    const step = this.stepOf.get(id);
    return step !== undefined ? this.data.steps[step - 1]?.line ?? null : null;
  }

  /** The node ids recorded by any step at `line`. */
  nodesAtLine(line: number): string[] {
    return [...this.stepOf].filter(([, step]) => this.data.steps[step - 1]?.line === line).map(([id]) => id);
  }

  code(line: number): string {
    return (this.source[line - 1] ?? "").trim();
  }

  /** What the boxes show after step `index`: those not recorded yet are hidden, those this line
   * recorded are lit (a group that holds one of them, too, naming it). */
  highlight(index: number, items: LayoutItem[]): Highlight {
    const at = this.data.steps[index]?.step ?? 0;
    const future = new Set<string>();
    const ready: string[] = [];
    const badges = new Map<string, string>();
    for (const item of items) {
      const nodes = nodesOfItem(item);
      const steps = nodes.map((id) => this.stepOf.get(id)).filter((s): s is number => s !== undefined);
      if (steps.length && Math.min(...steps) > at) future.add(item.id);
      const now = nodes.filter((id) => this.stepOf.get(id) === at);
      if (!now.length) continue;
      ready.push(item.id);
      if (item.group) badges.set(item.id, `▶ ${this.labels.get(now[0]) ?? now[0]}`);
    }
    return { future, recorded: new Set(ready), badges };
  }

  /** The editor's note on the step's line. */
  note(index: number): LineNote {
    const step = this.data.steps[index];
    const names = step.nodes.map((n) => this.label(n.order));
    const what = names.length ? sw("fwd.note.made", { nodes: names.join(", ") }) : sw("fwd.note.nothing");
    return { line: step.line, kind: "step", text: sw("fwd.note.step", { step: step.step, what }) };
  }

  label(order: number): string {
    const id = this.idOfOrder.get(order);
    return (id && this.labels.get(id)) ?? this.data.steps.flatMap((s) => s.nodes).find((n) => n.order === order)?.name ?? "?";
  }

  /** The side panel for step `index`: the line, what it recorded and saved, the tensor locals. */
  state(index: number): HTMLElement[] {
    const step = this.data.steps[index];
    const out: HTMLElement[] = [h("h3", { class: "step-title" }, sw("fwd.title", { line: step.line, code: this.code(step.line) }))];
    out.push(h("h4", {}, sw("fwd.recorded")));
    out.push(
      step.nodes.length
        ? h("ul", { class: "fwd-nodes" }, step.nodes.map((n) => h("li", {}, this.label(n.order))))
        : h("p", { class: "muted" }, sw("fwd.recorded.none")),
    );
    if (step.saved.length) {
      out.push(
        h("h4", {}, sw("fwd.saved")),
        h(
          "ul",
          { class: "fwd-saved" },
          step.saved.map((s) => h("li", {}, `${this.label(s.node)}: _saved_${s.name} ${formatShape(s.shape)} ${s.dtype} · ${formatBytes(s.bytes)}`)),
        ),
      );
    }
    out.push(h("p", { class: "fwd-held", "data-testid": "fwd-held" }, sw("fwd.held", { bytes: formatBytes(step.held_bytes) })));
    out.push(h("h4", {}, sw("fwd.locals")), this.localsTable(step));
    return out;
  }

  private localsTable(step: ForwardStep): HTMLElement {
    if (!step.locals.length) return h("p", { class: "muted" }, sw("fwd.locals.none"));
    const cols = ["fwd.col.name", "fwd.col.shape", "fwd.col.dtype", "fwd.col.rg", "fwd.col.fn", "fwd.col.version"] as const;
    const rows = step.locals.map((v) =>
      h(
        "tr",
        {},
        h("th", { scope: "row" }, v.name),
        h("td", {}, formatShape(v.shape)),
        h("td", {}, v.dtype),
        h("td", {}, String(v.requires_grad)),
        h("td", {}, v.grad_fn ?? "None"),
        h("td", {}, String(v.version)),
      ),
    );
    const table = h(
      "table",
      { class: "fwd-locals", "data-testid": "fwd-locals" },
      h("thead", {}, h("tr", {}, cols.map((k) => h("th", { scope: "col" }, sw(k))))),
      h("tbody", {}, rows),
    );
    const more = step.more_locals ? [h("p", { class: "muted" }, sw("fwd.more", { n: step.more_locals }))] : [];
    return h("div", { class: "fwd-locals-wrap", tabindex: "0", role: "region", "aria-label": sw("fwd.locals") }, table, ...more);
  }

  /** The step table's rows: step, line, code, what it recorded, saved bytes held. */
  rows(go: (index: number) => void): HTMLTableRowElement[] {
    return this.data.steps.map((step, i) =>
      h(
        "tr",
        { "data-index": String(i), class: "forward", onclick: () => go(i) },
        h("td", {}, String(step.step)),
        h("td", {}, String(step.line)),
        h("td", {}, h("code", {}, this.code(step.line))),
        h("td", {}, step.nodes.map((n) => this.label(n.order)).join(", ")),
        h("td", {}, formatBytes(step.held_bytes)),
      ),
    );
  }

  /** A note when the recording is not the whole run (a cap, or Stop), one sentence a cause. */
  notice(): string | null {
    const d = this.data;
    const notes: string[] = [];
    if (d.truncated && d.cut_by === "nodes") notes.push(sw("fwd.cut.nodes", { max: d.max_nodes, line: d.stopped_at ?? "?" }));
    else if (d.truncated) notes.push(sw("fwd.cut", { max: d.max_steps, line: d.stopped_at ?? "?" }));
    else if (d.stopped) notes.push(sw("fwd.stopped"));
    if (!d.graph && !d.trace && d.graph_nodes > d.max_graph_nodes) notes.push(sw("fwd.graph.large", { max: d.max_graph_nodes }));
    const kept = d.backward;
    if (kept && kept.largest_untraced) notes.push(sw("bwd.large", { nodes: kept.largest_untraced, max: kept.max_nodes ?? "?" }));
    if (kept && kept.untraced && kept.max_passes !== null && kept.traced >= kept.max_passes) {
      notes.push(sw("bwd.passes", { traced: kept.traced, total: kept.traced + kept.untraced }));
    }
    return notes.length ? notes.join(" ") : null;
  }
}
