// The Graph tab: the drawing of kael.viz.graph data, saved-bytes totals, and a side panel with
// the selected node's details (inputs, saved tensors, hooks, values).

import { clear, formatBytes, h } from "../ui/dom";
import { t } from "../ui/i18n";
import { GraphCanvas } from "./canvas";
import { layoutGraph, type LayoutItem } from "./layout";
import { formatShape, formatValues, type GraphData } from "./types";

/** Larger graphs are summarized, not drawn: laying out thousands of nodes would freeze the page. */
export const MAX_DRAWN_NODES = 400;

export class GraphView {
  readonly element: HTMLElement;
  readonly canvas: GraphCanvas;
  private readonly placeholder: HTMLElement;
  private readonly totals: HTMLElement;
  private readonly details: HTMLElement;
  private readonly caption: HTMLElement;
  private data: GraphData | null = null;
  private title: string | null = null;
  private selected: LayoutItem | null = null;
  private tooLarge = false;

  constructor() {
    this.canvas = new GraphCanvas((item) => this.showDetails(item), "graph.label");
    this.placeholder = h("p", { class: "placeholder" });
    this.totals = h("p", { class: "graph-totals", "data-testid": "graph-totals" });
    this.caption = h("h3", { class: "graph-caption" });
    this.details = h("aside", { class: "graph-details", "aria-live": "polite" });
    this.element = h(
      "div",
      { class: "graph-view" },
      this.placeholder,
      h("div", { class: "graph-main" }, h("div", { class: "graph-head" }, this.caption, this.totals), this.canvas.element),
      this.details,
    );
    this.refreshText();
  }

  show(data: GraphData, title?: string | null): void {
    this.data = data;
    this.title = title ?? null;
    this.element.classList.add("has-graph");
    this.tooLarge = data.nodes.length > MAX_DRAWN_NODES;
    if (this.tooLarge) this.canvas.clear();
    else this.canvas.render(layoutGraph(data));
    this.refreshText();
    this.showDetails(null);
  }

  reset(): void {
    this.data = null;
    this.element.classList.remove("has-graph");
    this.refreshText();
  }

  refreshText(): void {
    this.placeholder.textContent = t("graph.empty");
    this.caption.textContent = this.tooLarge && this.data
      ? t("graph.toolarge", { nodes: this.data.nodes.length, max: MAX_DRAWN_NODES })
      : (this.title ?? "");
    const d = this.data;
    this.totals.textContent = d
      ? t("graph.totals", {
          nodes: d.totals.nodes,
          saved: d.totals.saved_tensors,
          bytes: formatBytes(d.totals.saved_bytes),
        })
      : "";
    this.showDetails(this.selected);
  }

  private showDetails(item: LayoutItem | null): void {
    this.selected = item;
    clear(this.details);
    this.details.append(h("h3", {}, t("graph.details")));
    if (!item) {
      this.details.append(h("p", { class: "muted" }, t("graph.select")));
      return;
    }
    this.details.append(...describeItem(item, this.data));
  }
}

export function describeItem(item: LayoutItem, data: GraphData | null): HTMLElement[] {
  const out: HTMLElement[] = [];
  const row = (k: string, v: string) => h("div", { class: "kv" }, h("dt", {}, k), h("dd", {}, v));
  if (item.node) {
    const node = item.node;
    out.push(h("p", { class: "detail-title" }, node.label), h("p", { class: "muted" }, t(`graph.kind.${node.kind}`)));
    if (node.doc) out.push(h("p", { class: "doc" }, node.doc.replace(/``([^`]+)``/g, "$1")));
    if (node.inputs.length) out.push(h("h4", {}, t("graph.inputs")));
    const byId = new Map((data?.nodes ?? []).map((n) => [n.id, n]));
    out.push(
      h(
        "ol",
        { class: "inputs", start: "0" },
        node.inputs.map((input) =>
          h(
            "li",
            {},
            `${formatShape(input.shape)} ${input.dtype} → `,
            input.node ? (byId.get(input.node)?.label ?? input.node) : h("em", {}, t("graph.null")),
          ),
        ),
      ),
    );
    if (node.kind === "function") {
      out.push(h("h4", {}, t("graph.saved")));
      if (node.saved.length === 0) out.push(h("p", { class: "muted" }, t("graph.saved.none")));
      else
        out.push(
          h(
            "ul",
            { class: "saved" },
            node.saved.map((sv) =>
              h(
                "li",
                { class: sv.stale ? "stale" : "" },
                h("code", {}, `_saved_${sv.name}`),
                ` ${formatShape(sv.shape)} ${sv.dtype} · ${formatBytes(sv.bytes)} · v${sv.version}`,
                sv.stale ? h("strong", {}, ` (v${sv.current_version}: ${t("graph.saved.stale")})`) : "",
              ),
            ),
          ),
        );
      if (node.released) out.push(h("p", { class: "muted" }, t("graph.released")));
    }
    const hooks = node.hooks;
    if (hooks && hooks.pre + hooks.post + hooks.tensor > 0) {
      out.push(h("h4", {}, t("graph.hooks")), h("p", {}, `pre ${hooks.pre} · post ${hooks.post} · tensor ${hooks.tensor}`));
    }
    const tensor = node.tensor ? data?.tensors.find((x) => x.id === node.tensor) : undefined;
    if (tensor?.grad) out.push(row(t("graph.grad"), formatValues(tensor.grad)));
  } else if (item.tensor) {
    const tensor = item.tensor;
    out.push(h("p", { class: "detail-title" }, tensor.name ?? tensor.id), h("p", { class: "muted" }, `${t("graph.kind.tensor")} (${tensor.role})`));
    out.push(
      h(
        "dl",
        {},
        row("shape", formatShape(tensor.shape)),
        row("dtype", tensor.dtype),
        row("requires_grad", String(tensor.requires_grad)),
        row(t("graph.value"), formatValues(tensor.value)),
        row(t("graph.grad"), formatValues(tensor.grad)),
      ),
    );
  } else if (item.constOf) {
    const input = item.constOf.node.inputs[item.constOf.input_nr];
    out.push(
      h("p", { class: "detail-title" }, t("graph.const")),
      h("p", { class: "muted" }, t("graph.kind.const")),
      h("p", {}, `${item.constOf.node.label} input ${item.constOf.input_nr}: ${formatShape(input.shape)} ${input.dtype}`),
      h("p", {}, t("graph.null")),
    );
  }
  return out;
}
