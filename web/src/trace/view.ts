// The Trace tab: kael.viz.trace() data as ADR 0005's step table and a stepper (first, previous,
// next, last, play) that highlights on the graph the node being processed, the gradients sent
// along edges, each node's buffer and dependency count, and the ready stack. Everything shown
// is read from the recorded events; nothing is recomputed here.

import { GraphCanvas, type Highlight } from "../graph/canvas";
import { layoutGraph, type LayoutItem } from "../graph/layout";
import {
  formatShape,
  formatValues,
  type GraphData,
  type TraceData,
  type TraceEvent,
  type TraceStart,
  type TraceStep,
} from "../graph/types";
import { describeItem, MAX_DRAWN_NODES } from "../graph/view";
import { clear, h, s } from "../ui/dom";
import { bind, t } from "../ui/i18n";

const PLAY_MS = 900;

// Stepper icons as SVG paths (no icon font, so they draw the same everywhere).
const ICONS = {
  first: "M3 3h2v10H3z M13 3v10L6 8z",
  prev: "M12 3v10L5 8z",
  next: "M4 3v10l7-5z",
  last: "M11 3h2v10h-2z M3 3v10l7-5z",
  play: "M4 3v10l9-5z",
  pause: "M4 3h3v10H4z M9 3h3v10H9z",
};

function svgIcon(name: keyof typeof ICONS): SVGSVGElement {
  return s("svg", { viewBox: "0 0 16 16", width: "14", height: "14", "aria-hidden": "true", class: "svg-icon" }, s("path", { d: ICONS[name] }));
}

export class TraceView {
  readonly element: HTMLElement;
  private readonly canvas: GraphCanvas;
  private readonly placeholder: HTMLElement;
  private readonly position: HTMLElement;
  private readonly table: HTMLTableElement;
  private readonly state: HTMLElement;
  private readonly passPicker: HTMLSelectElement;
  private readonly playButton: HTMLButtonElement;
  private readonly buttons: HTMLButtonElement[];
  private data: TraceData | null = null;
  private pass = 0;
  private frames: TraceEvent[] = []; // frames[0] is the pass's start event
  private index = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private selected: LayoutItem | null = null;

  constructor() {
    this.canvas = new GraphCanvas((item) => {
      this.selected = item;
      this.renderState();
    }, "graph.label");
    this.placeholder = h("p", { class: "placeholder" });
    this.position = h("span", { class: "trace-position", "aria-live": "polite", "data-testid": "trace-position" });
    const button = (key: string, icon: keyof typeof ICONS, action: () => void) => {
      const b = h("button", { type: "button", class: "icon", onclick: action }, svgIcon(icon));
      bind(b, key as never, "aria-label");
      b.title = b.getAttribute("aria-label") ?? "";
      return b;
    };
    this.playButton = button("trace.play", "play", () => this.togglePlay());
    this.buttons = [
      button("trace.first", "first", () => this.go(0)),
      button("trace.prev", "prev", () => this.go(this.index - 1)),
      button("trace.next", "next", () => this.go(this.index + 1)),
      button("trace.last", "last", () => this.go(this.frames.length - 1)),
    ];
    this.passPicker = h("select", { class: "pass-picker", onchange: () => this.choosePass(Number(this.passPicker.value)) });
    this.passPicker.setAttribute("aria-label", "pass");
    const stepper = h(
      "div",
      { class: "stepper", role: "toolbar", "aria-label": "stepper" },
      this.buttons[0],
      this.buttons[1],
      this.playButton,
      this.buttons[2],
      this.buttons[3],
      this.position,
      this.passPicker,
    );
    this.table = h("table", { class: "trace-table" });
    this.state = h("div", { class: "trace-state" });
    this.element = h(
      "div",
      { class: "trace-view" },
      this.placeholder,
      h(
        "div",
        { class: "trace-main" },
        stepper,
        h("div", { class: "trace-body" }, this.canvas.element, this.state),
        h("div", { class: "trace-table-wrap" }, this.table),
      ),
    );
    this.element.addEventListener("keydown", (e) => {
      if ((e.target as HTMLElement).closest("select, .graph-canvas")) return;
      if (e.key === "ArrowRight" || e.key === "j") this.go(this.index + 1);
      else if (e.key === "ArrowLeft" || e.key === "k") this.go(this.index - 1);
      else if (e.key === "Home") this.go(0);
      else if (e.key === "End") this.go(this.frames.length - 1);
      else return;
      e.preventDefault();
    });
    this.refreshText();
  }

  show(data: TraceData): void {
    this.stop();
    this.data = data;
    this.element.classList.toggle("has-trace", data.passes.length > 0);
    clear(this.passPicker);
    data.passes.forEach((p) => this.passPicker.append(h("option", { value: String(p.index) }, t("trace.pass", { n: p.index + 1 }))));
    this.passPicker.hidden = data.passes.length < 2;
    this.choosePass(data.passes.length ? data.passes[data.passes.length - 1].index : 0);
  }

  reset(): void {
    this.stop();
    this.data = null;
    this.element.classList.remove("has-trace");
  }

  refreshText(): void {
    this.placeholder.textContent = t("trace.empty");
    this.playButton.setAttribute("aria-label", this.timer ? t("trace.pause") : t("trace.play"));
    if (this.data) {
      Array.from(this.passPicker.options).forEach((o, i) => (o.textContent = t("trace.pass", { n: i + 1 })));
      this.renderTable();
      this.renderFrame();
    }
  }

  refit(): void {
    this.canvas.refit();
  }

  private get graph(): GraphData | null {
    return this.data?.passes.find((p) => p.index === this.pass)?.graph ?? null;
  }

  private choosePass(pass: number): void {
    this.pass = pass;
    this.passPicker.value = String(pass);
    this.frames = (this.data?.steps ?? []).filter((e) => e.pass === pass);
    const graph = this.graph;
    if (graph && graph.nodes.length <= MAX_DRAWN_NODES) this.canvas.render(layoutGraph(graph));
    else this.canvas.clear();
    this.selected = null;
    this.index = 0;
    this.renderTable();
    this.renderFrame();
  }

  go(index: number): void {
    if (!this.frames.length) return;
    this.index = Math.max(0, Math.min(this.frames.length - 1, index));
    this.renderFrame();
  }

  private togglePlay(): void {
    if (this.timer) return this.stop();
    if (this.index >= this.frames.length - 1) this.go(0);
    this.timer = setInterval(() => {
      if (this.index >= this.frames.length - 1) this.stop();
      else this.go(this.index + 1);
    }, PLAY_MS);
    this.playButton.classList.add("playing");
    this.playButton.replaceChildren(svgIcon("pause"));
    this.playButton.setAttribute("aria-label", t("trace.pause"));
    this.playButton.setAttribute("aria-pressed", "true");
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.playButton.classList.remove("playing");
    this.playButton.replaceChildren(svgIcon("play"));
    this.playButton.setAttribute("aria-label", t("trace.play"));
    this.playButton.setAttribute("aria-pressed", "false");
  }

  // ------------------------------------------------------------------ text for events

  private label(id: string | null): string {
    if (!id) return "?";
    return this.graph?.nodes.find((n) => n.id === id)?.label ?? id;
  }

  private leafName(nodeId: string): string {
    const graph = this.graph;
    const node = graph?.nodes.find((n) => n.id === nodeId);
    const tensor = node?.tensor ? graph?.tensors.find((x) => x.id === node.tensor) : undefined;
    return tensor?.name ?? "leaf";
  }

  private incoming(event: TraceEvent): string {
    if (event.kind === "start") return "";
    const start = this.frames[0] as TraceStart | undefined;
    const seed = start?.kind === "start" ? start.seeds.find((s) => s.node === event.node) : undefined;
    if (seed && event.kind === "step" && (event as TraceStep).step === 1 && seed.grad) {
      return t("trace.seed", { grad: formatValues(seed.grad), shape: formatShape(seed.grad.shape) });
    }
    return formatValues(event.grad);
  }

  private result(event: TraceEvent): string {
    if (event.kind === "start") return "";
    if (event.kind === "error") return t("trace.error", { type: event.type, message: event.message });
    if (event.kind === "skip") return t("trace.skip", { reason: event.reason ?? "" });
    if (event.accumulated) return t("trace.grad", { name: this.leafName(event.node), grad: formatValues(event.accumulated) });
    const parts = event.sends
      .filter((s) => s.grad)
      .map((s) => {
        const vars = {
          grad: formatValues(s.grad),
          node: this.label(s.to),
          before: s.count_before,
          after: s.count_after,
          buffer: formatValues(s.buffer),
        };
        if (s.added) return t("trace.added", vars);
        if (s.count_after > 0) return t("trace.buffered", vars);
        return t("trace.to", vars);
      });
    return parts.join("; ");
  }

  // ------------------------------------------------------------------ rendering

  private renderTable(): void {
    clear(this.table);
    const head = h(
      "tr",
      {},
      ["trace.col.step", "trace.col.node", "trace.col.incoming", "trace.col.result"].map((k) => h("th", { scope: "col" }, t(k))),
    );
    const rows = this.frames.map((event, i) => {
      const step = event.kind === "start" ? "0" : String(event.step);
      const node = event.kind === "start" ? t("trace.start") : this.label(event.node);
      const row = h(
        "tr",
        { "data-index": String(i), class: event.kind, onclick: () => this.go(i) },
        h("td", {}, step),
        h("td", {}, node),
        h("td", {}, this.incoming(event)),
        h("td", {}, this.result(event)),
      );
      return row;
    });
    this.table.append(h("thead", {}, head), h("tbody", {}, rows));
  }

  private renderFrame(): void {
    const total = Math.max(0, this.frames.length - 1);
    this.position.textContent = this.frames.length ? t("trace.position", { step: this.index, total }) : "";
    this.position.dataset.step = String(this.index);
    this.position.dataset.total = String(total);
    this.buttons[0].disabled = this.buttons[1].disabled = this.index <= 0;
    this.buttons[2].disabled = this.buttons[3].disabled = this.index >= total;
    this.table.querySelectorAll("tbody tr").forEach((row, i) => {
      row.classList.toggle("current", i === this.index);
      if (i === this.index) row.setAttribute("aria-current", "step");
      else row.removeAttribute("aria-current");
    });
    this.canvas.setHighlight(this.highlight());
    this.renderState();
  }

  /** Counts, buffers and processed nodes after frames[0..index], replayed from the events. */
  private replay() {
    const start = this.frames[0];
    const counts = new Map<string, number>(start?.kind === "start" ? Object.entries(start.counts) : []);
    const buffers = new Map<string, string>();
    const done: string[] = [];
    for (const event of this.frames.slice(1, this.index + 1)) {
      if (event.kind !== "step" && event.kind !== "skip") continue;
      buffers.delete(event.node);
      done.push(event.node);
      for (const send of event.sends) {
        counts.set(send.to, send.count_after);
        if (send.buffer && send.count_after > 0) buffers.set(send.to, formatValues(send.buffer));
        else buffers.delete(send.to);
      }
    }
    return { counts, buffers, done };
  }

  private highlight(): Highlight {
    const event = this.frames[this.index];
    if (!event) return {};
    const { counts, buffers, done } = this.replay();
    const badges = new Map<string, string>();
    for (const [id, count] of counts) {
      const buffer = buffers.get(id);
      if (count > 0 || buffer) badges.set(id, `${count > 0 ? `count ${count}` : ""}${buffer ? ` buf ${buffer}` : ""}`.trim());
    }
    const sent = new Map<string, string>();
    if (event.kind === "step") {
      for (const send of event.sends) {
        const edge = this.graph?.edges.find((e) => e.from === event.node && e.input_nr === send.input_nr);
        if (edge && send.grad) sent.set(edge.id, formatValues(send.grad, 4));
      }
      if (event.accumulated) {
        const node = this.graph?.nodes.find((n) => n.id === event.node);
        if (node?.tensor) sent.set(`g:${node.tensor}`, formatValues(event.accumulated, 4));
      }
    }
    const ready = event.kind === "start" ? event.ready : event.kind === "error" ? [] : event.ready;
    const current = event.kind === "start" ? null : event.node;
    return {
      current,
      ready,
      done: done.filter((id) => id !== current),
      error: event.kind === "error" ? event.node : null,
      sent,
      badges,
    };
  }

  private renderState(): void {
    clear(this.state);
    const event = this.frames[this.index];
    if (!event) return;
    const { counts, buffers } = this.replay();
    const title = event.kind === "start" ? t("trace.start") : `${event.step}. ${this.label(event.node)}`;
    this.state.append(h("h3", { class: "step-title" }, title));
    if (event.kind !== "start") {
      this.state.append(
        h("p", { class: "step-incoming" }, `${t("trace.col.incoming")}: ${this.incoming(event)}`),
        h("p", { class: "step-result", "data-testid": "step-result" }, this.result(event)),
      );
    }
    const ready = event.kind === "error" ? [] : event.ready;
    this.state.append(
      h("h4", {}, t("trace.ready")),
      h("p", { class: "ready-stack" }, ready.length ? ready.map((id) => this.label(id)).join(" · ") : t("trace.ready.empty")),
      h("h4", {}, t("trace.counts")),
      h(
        "ul",
        { class: "counts" },
        [...counts].map(([id, count]) => h("li", {}, `${this.label(id)}: ${count}`)),
      ),
    );
    if (buffers.size) {
      this.state.append(
        h("h4", {}, t("trace.buffers")),
        h("ul", { class: "buffers" }, [...buffers].map(([id, b]) => h("li", {}, `${this.label(id)}: ${b}`))),
      );
    }
    if (this.selected) {
      this.state.append(h("hr"), ...describeItem(this.selected, this.graph));
    }
  }
}
