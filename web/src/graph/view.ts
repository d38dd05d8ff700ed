// The Graph tab: the drawing of kael.viz.graph data (grouped, laid out in a worker), saved-bytes
// totals, tools to open or close every group, and a side panel with the selected box's details
// (inputs, saved tensors with their values, hooks, values and gradients).

import { clear, formatBytes, h } from "../ui/dom";
import { t } from "../ui/i18n";
import type { GraphCanvas } from "./canvas";
import { GraphDrawing } from "./drawing";
import type { LayoutItem } from "./layout";
import { summarize } from "./model";
import { formatCount, gt } from "./strings";
import { formatShape, formatValues, type GraphData, type SavedTensor } from "./types";

export class GraphView {
  readonly element: HTMLElement;
  readonly drawing: GraphDrawing;
  private readonly placeholder: HTMLElement;
  private readonly totals: HTMLElement;
  private readonly details: HTMLElement;
  private readonly caption: HTMLElement;
  private readonly status: HTMLElement;
  private readonly summary: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly openAll: HTMLButtonElement;
  private readonly closeAll: HTMLButtonElement;
  private data: GraphData | null = null;
  private title: string | null = null;
  private selected: LayoutItem | null = null;
  private stepped: GraphData | null = null; // the graph as of a stepper's step (its details)
  private statusText = "";

  constructor() {
    this.drawing = new GraphDrawing((item) => this.showDetails(item));
    this.drawing.onStatus = (text) => {
      this.statusText = text;
      this.status.textContent = text;
      this.renderSummary();
    };
    this.placeholder = h("p", { class: "placeholder" });
    this.totals = h("p", { class: "graph-totals", "data-testid": "graph-totals" });
    this.caption = h("h3", { class: "graph-caption" });
    this.status = h("p", { class: "graph-status", "data-testid": "graph-status", "aria-live": "polite" });
    this.summary = h("div", { class: "graph-summary", "data-testid": "graph-summary" });
    this.legend = h("details", { class: "graph-legend", "data-testid": "graph-legend" });
    this.details = h("aside", { class: "graph-details", "aria-live": "polite" });
    this.openAll = h("button", { type: "button", class: "link", onclick: () => this.drawing.openAll(true) });
    this.closeAll = h("button", { type: "button", class: "link", onclick: () => this.drawing.openAll(false) });
    this.element = h(
      "div",
      { class: "graph-view" },
      this.placeholder,
      h(
        "div",
        { class: "graph-main" },
        h("div", { class: "graph-head" }, this.caption, this.totals, h("span", { class: "group-tools" }, this.openAll, this.closeAll)),
        this.status,
        this.legend,
        this.summary,
        this.drawing.element,
      ),
      this.details,
    );
    this.refreshText();
  }

  get canvas(): GraphCanvas {
    return this.drawing.canvas;
  }

  show(data: GraphData, title?: string | null): void {
    this.data = data;
    this.stepped = null;
    this.title = title ?? null;
    this.element.classList.add("has-graph");
    this.refreshText();
    this.showDetails(null);
    void this.drawing.show(data);
  }

  /** The details show the graph as of a stepper's step (gradients not arrived yet are None). */
  showStep(data: GraphData | null): void {
    this.stepped = data;
    this.showDetails(this.selected);
  }

  reset(): void {
    this.data = null;
    this.stepped = null;
    this.statusText = "";
    this.drawing.reset();
    this.element.classList.remove("has-graph");
    this.refreshText();
  }

  refreshText(): void {
    this.placeholder.textContent = t("graph.empty");
    this.caption.textContent = this.title ?? "";
    this.status.textContent = this.statusText;
    this.openAll.textContent = gt("tools.open");
    this.closeAll.textContent = gt("tools.close");
    const open = (this.legend as HTMLDetailsElement).open;
    clear(this.legend);
    this.legend.append(h("summary", {}, gt("glegend.title")), ...(["boxes", "groups", "modules"] as const).map((k) => h("p", {}, gt(`glegend.${k}`))));
    (this.legend as HTMLDetailsElement).open = open;
    const d = this.data;
    this.totals.textContent = d
      ? t("graph.totals", { nodes: d.totals.nodes, saved: d.totals.saved_tensors, bytes: formatBytes(d.totals.saved_bytes) })
      : "";
    this.renderSummary();
    this.showDetails(this.selected);
  }

  /** A graph too large to draw: counts by node name and a way to draw it with groups closed. */
  private renderSummary(): void {
    clear(this.summary);
    if (!this.data || this.drawing.element.dataset.state !== "summary") return;
    this.summary.append(
      h("p", {}, gt("summary.open")),
      h("ul", { class: "summary-counts" }, summarize(this.data).slice(0, 12).map((c) => h("li", {}, `${c.name} × ${formatCount(c.count)}`))),
    );
  }

  private showDetails(item: LayoutItem | null): void {
    this.selected = item;
    clear(this.details);
    this.details.append(h("h3", {}, t("graph.details")));
    if (!item) {
      this.details.append(h("p", { class: "muted" }, t("graph.select")));
      return;
    }
    const data = this.stepped ?? this.data;
    const tensor = this.stepped && item.tensor ? this.stepped.tensors.find((x) => x.id === item.tensor?.id) : undefined;
    this.details.append(...describeItem(tensor ? { ...item, tensor } : item, data));
  }
}

const row = (k: string, v: string) => h("div", { class: "kv" }, h("dt", {}, k), h("dd", {}, v));

function savedItem(sv: SavedTensor): HTMLElement {
  return h(
    "li",
    { class: sv.stale ? "stale" : "" },
    h("code", {}, `_saved_${sv.name}`),
    ` ${formatShape(sv.shape)} ${sv.dtype} · ${formatBytes(sv.bytes)} · v${sv.version}`,
    h("div", { class: "saved-value" }, `${gt("detail.value")}: ${sv.value ? formatValues(sv.value, 12) : gt("detail.novalue")}`),
    sv.stale ? h("strong", { class: "stale-words" }, gt("detail.stale", { now: sv.current_version, then: sv.version })) : "",
  );
}

function describeNode(item: LayoutItem, data: GraphData | null): HTMLElement[] {
  const node = item.node!;
  const out: HTMLElement[] = [h("p", { class: "detail-title" }, node.label), h("p", { class: "muted" }, t(`graph.kind.${node.kind}`))];
  const module = node.module ? data?.modules.find((m) => m.id === node.module) : undefined;
  if (module) out.push(row(gt("detail.module"), module.path ? `${module.path} (${module.type})` : module.type));
  if (node.doc) out.push(h("p", { class: "doc" }, node.doc.replace(/``([^`]+)``/g, "$1")));
  if (node.output) out.push(row(gt("detail.output"), `${formatShape(node.output.shape)} ${node.output.dtype}`));
  if (node.inputs.length) out.push(h("h4", {}, t("graph.inputs")));
  const byId = new Map((data?.nodes ?? []).map((n) => [n.id, n]));
  out.push(
    h(
      "ol",
      { class: "inputs", start: "0" },
      node.inputs.map((input) =>
        h("li", {}, `${formatShape(input.shape)} ${input.dtype} → `, input.node ? (byId.get(input.node)?.label ?? input.node) : h("em", {}, t("graph.null"))),
      ),
    ),
  );
  if (node.kind === "function") {
    out.push(h("h4", {}, t("graph.saved")));
    if (node.saved.length === 0) out.push(h("p", { class: "muted" }, t("graph.saved.none")));
    else out.push(h("ul", { class: "saved" }, node.saved.map(savedItem)));
    if (node.released) out.push(h("p", { class: "muted" }, t("graph.released")));
  }
  const hooks = node.hooks;
  if (hooks && hooks.pre + hooks.post + hooks.tensor > 0) {
    out.push(h("h4", {}, t("graph.hooks")), h("p", {}, `pre ${hooks.pre} · post ${hooks.post} · tensor ${hooks.tensor}`));
  }
  const tensor = node.tensor ? data?.tensors.find((x) => x.id === node.tensor) : undefined;
  if (tensor) out.push(row(t("graph.value"), formatValues(tensor.value)));
  if (tensor?.grad) out.push(row(t("graph.grad"), formatValues(tensor.grad)));
  return out;
}

export function describeItem(item: LayoutItem, data: GraphData | null): HTMLElement[] {
  if (item.node) return describeNode(item, data);
  if (item.tensor) {
    const tensor = item.tensor;
    return [
      h("p", { class: "detail-title" }, tensor.name ?? tensor.id),
      h("p", { class: "muted" }, `${t("graph.kind.tensor")} (${tensor.role})`),
      h(
        "dl",
        {},
        row("shape", formatShape(tensor.shape)),
        row("dtype", tensor.dtype),
        row("requires_grad", String(tensor.requires_grad)),
        row(t("graph.value"), formatValues(tensor.value)),
        row(t("graph.grad"), formatValues(tensor.grad)),
      ),
    ];
  }
  if (item.constOf) {
    const input = item.constOf.node.inputs[item.constOf.input_nr];
    return [
      h("p", { class: "detail-title" }, gt("role.constant")),
      h("p", { class: "muted" }, t("graph.kind.const")),
      ...(item.constOf.name ? [row(gt("detail.name"), item.constOf.name)] : []),
      h("p", {}, `${item.constOf.node.label} input ${item.constOf.input_nr}: ${formatShape(input.shape)} ${input.dtype}`),
      h("p", {}, t("graph.null")),
    ];
  }
  const group = item.group!;
  return [h("p", { class: "detail-title" }, group.label), h("p", { class: "muted" }, gt("detail.group", { n: group.nodes.length }))];
}
