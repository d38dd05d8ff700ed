// The Trace tab: kael.viz.trace() data as ADR 0005's step table and a stepper (first, previous,
// next, last, play) that highlights on the graph the node being processed, the gradients sent
// along edges, each node's buffer and dependency count, and the ready stack. Everything shown
// is read from the recorded events; nothing is recomputed here.

import type { Highlight } from "../graph/canvas";
import { GraphDrawing } from "../graph/drawing";
import { gradLine, type LayoutItem } from "../graph/layout";
import { gt } from "../graph/strings";
import {
  formatShape,
  formatValues,
  type GraphData,
  type GraphTensor,
  type TraceData,
  type TraceEvent,
  type TracePass,
  type TraceStart,
  type TraceStep,
  type TensorValues,
} from "../graph/types";
import { describeItem } from "../graph/view";
import type { PanelPlace } from "../panels/panel";
import { iconButton, stepKeys, svgIcon } from "../stepper/bar";
import { ForwardPhase, nodesOfItem } from "../stepper/forward";
import { errorNotes, runSwitches, stepperLink, type StepperMemory } from "../stepper/link";
import { bind } from "../ui/i18n";
import { stepperMemory } from "../stepper/memory";
import type { ForwardData } from "../stepper/types";
import { sw } from "../stepper/words";
import { clear, h, withInlineCode } from "../ui/dom";
import { t } from "../ui/i18n";

const PLAY_MS = 900;

export class TraceView {
  readonly element: HTMLElement;
  private readonly drawing: GraphDrawing;
  private readonly legend: HTMLElement;
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
  private forward: ForwardPhase | null = null; // the forward recording's steps, before the frames
  private forwardDoc: { doc: ForwardData; source: string[] } | null = null;
  private readonly fwdTable: HTMLTableElement;
  private readonly tableWrap: HTMLElement;
  private readonly notice: HTMLElement;
  private index = 0;
  private timer: ReturnType<typeof setInterval> | null = null;
  private selected: LayoutItem | null = null;
  private replayed = new Replay(null, null);
  private labels = new Map<string, string>(); // node id -> label, for the pass graph
  private rows: HTMLTableRowElement[] = [];
  private currentRow: HTMLTableRowElement | null = null;

  constructor() {
    this.drawing = new GraphDrawing((item) => {
      this.selected = item;
      this.renderState();
      this.markRecorder(item);
    });
    stepperLink.onLineClick((line) => this.highlightLine(line));
    stepperLink.onGo((index) => this.go(index)); // the Graph tab's bar drives this stepper
    this.drawing.onDrawn = () => this.drawing.canvas.setHighlight(this.highlight());
    this.legend = h("div", { class: "trace-legend", "aria-label": "legend" });
    this.placeholder = h("p", { class: "placeholder" });
    this.position = h("span", { class: "trace-position", "aria-live": "polite", "data-testid": "trace-position" });
    const button = iconButton;
    this.playButton = button("trace.play", "play", () => this.togglePlay());
    this.buttons = [
      button("trace.first", "first", () => this.go(0)),
      button("trace.prev", "prev", () => this.go(this.index - 1)),
      button("trace.next", "next", () => this.go(this.index + 1)),
      button("trace.last", "last", () => this.go(this.total - 1)),
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
    this.tableWrap = h("div", { class: "trace-table-wrap", tabindex: "0", role: "region" });
    this.fwdTable = h("table", { class: "trace-table forward-table", hidden: true });
    this.notice = h("p", { class: "fwd-notice", role: "note", "data-testid": "fwd-notice", hidden: true });
    this.tableWrap.append(this.fwdTable, this.table); // focusable: the keyboard scrolls a long list
    // It scrolls when the pane is short (a step's ready stack and counts): a Tab stop, so keys
    // can scroll it.
    this.state = h("div", { class: "trace-state", tabindex: "0", role: "region" });
    bind(this.state, "trace.statePanel", "aria-label");
    this.element = h(
      "div",
      { class: "trace-view" },
      this.recordBar(),
      this.placeholder,
      h(
        "div",
        { class: "trace-main" },
        stepper,
        this.notice,
        this.legend,
        h("div", { class: "trace-body" }, this.drawing.element, this.state),
        // Focusable: the keyboard scrolls a step list longer than its box (axe: scrollable-region-focusable).
        this.tableWrap,
      ),
    );
    stepKeys(this.element, () => this.index, () => this.total, (i) => this.go(i));
    this.refreshText();
  }

  /** The switch that records the forward pass on every run, and a button for one recorded run. */
  private recordBar(): HTMLElement {
    const box = h("input", { type: "checkbox", "data-testid": "record-forward" }) as HTMLInputElement;
    box.checked = runSwitches.recordForward;
    box.addEventListener("change", () => runSwitches.setRecordForward(box.checked));
    const text = h("span", {});
    const once = h("button", { type: "button", class: "link", "data-testid": "record-run" });
    once.addEventListener("click", () => {
      runSwitches.recordOnce = true;
      stepperLink.run();
    });
    this.recordTexts = () => {
      text.textContent = sw("fwd.record");
      once.textContent = sw("fwd.record.run");
    };
    return h("div", { class: "record-bar" }, h("label", {}, box, " ", text), once);
  }

  private recordTexts: () => void = () => {};

  show(data: TraceData, keepForward = false): void {
    this.stop();
    if (!keepForward) this.forwardDoc = null;
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
    this.forwardDoc = null;
    this.forward = null;
    stepperLink.showNotes([], false);
    stepperLink.resetFollowers();
    this.element.classList.remove("has-trace");
  }

  refreshText(): void {
    this.recordTexts();
    this.tableWrap.setAttribute("aria-label", sw("fwd.steps"));
    this.placeholder.replaceChildren(...withInlineCode(t("trace.empty")));
    this.renderLegend();
    this.playButton.setAttribute("aria-label", this.timer ? t("trace.pause") : t("trace.play"));
    if (this.data) {
      Array.from(this.passPicker.options).forEach((o, i) => (o.textContent = t("trace.pass", { n: i + 1 })));
      this.renderTable();
      this.renderFrame();
    }
  }

  refit(): void {
    this.drawing.canvas.refit();
  }

  /** The step shown, and its pass when the trace has several (a share link carries both). */
  place(): PanelPlace | null {
    if (this.forward) return { step: this.index, forward: true, ...(this.data && this.data.passes.length > 1 ? { pass: this.pass } : {}) };
    if (!this.data || !this.frames.length) return null;
    return this.data.passes.length > 1 ? { step: this.index, pass: this.pass } : { step: this.index };
  }

  /** Show a shared step; false when this trace has no such pass or step. */
  restore(place: PanelPlace): boolean {
    if (place.forward !== undefined && !place.forward !== !this.forward) return false;
    if (this.forward && !this.data) {
      if (place.step < 0 || place.step >= this.total) return false;
      this.go(place.step);
      return true;
    }
    if (!this.data) return false;
    if (place.pass !== undefined && place.pass !== this.pass) {
      if (!this.data.passes.some((p) => p.index === place.pass)) return false;
      this.stop();
      this.choosePass(place.pass);
    }
    if (place.step < 0 || place.step >= this.total) return false;
    this.go(place.step);
    return true;
  }

  private renderLegend(): void {
    const swatch = (cls: string, key: Parameters<typeof gt>[0]) =>
      h("span", { class: "legend-entry" }, h("span", { class: `legend-swatch ${cls}`, "aria-hidden": "true" }), gt(key));
    this.legend.replaceChildren(
      swatch("current", "legend.current"),
      swatch("ready", "legend.ready"),
      swatch("done", "legend.done"),
      swatch("error", "legend.error"),
      swatch("sent", "legend.sent"),
      swatch("badge", "legend.badge"),
    );
  }

  private get passData(): TracePass | null {
    return this.data?.passes.find((p) => p.index === this.pass) ?? null;
  }

  private get graph(): GraphData | null {
    return this.passData?.graph ?? null;
  }

  /** The pass graph as of the step shown: each tensor with the gradient it holds then. */
  private stepGraph(): GraphData | null {
    const graph = this.graph;
    if (!graph) return null;
    const grads = this.replayed.grads;
    return { ...graph, tensors: graph.tensors.map((x) => ({ ...x, grad: grads.get(x.id) ?? null })) };
  }

  private choosePass(pass: number): void {
    this.pass = pass;
    this.passPicker.value = String(pass);
    this.frames = (this.data?.steps ?? []).filter((e) => e.pass === pass);
    const graph = this.graph;
    this.labels = new Map((graph?.nodes ?? []).map((n) => [n.id, n.label]));
    this.replayed = new Replay(this.frames[0] ?? null, this.passData);
    const fwd = this.forwardDoc;
    this.forward = fwd ? new ForwardPhase(fwd.doc, graph, fwd.source) : null;
    this.memory = fwd ? stepperMemory(fwd.doc, this.frames, graph, pass) : null;
    // Boxes are sized for the gradients the pass leaves; each step rewrites them as they stand.
    const final = this.passData?.grads;
    const drawn = graph ? { ...graph, tensors: graph.tensors.map((x) => ({ ...x, grad: final?.[x.id] ?? x.grad })) } : null;
    if (drawn) void this.drawing.show(drawn);
    else this.drawing.reset();
    this.follow(drawn);
    this.selected = null;
    this.index = 0;
    this.renderTable();
    this.renderFrame();
  }

  /** Steps of the one stepper: the forward recording's lines, then the backward pass's frames. */
  private get total(): number {
    return (this.forward?.length ?? 0) + this.frames.length;
  }

  /** The backward frame shown (below 0 in the forward phase). */
  private get at(): number {
    return this.index - (this.forward?.length ?? 0);
  }

  go(index: number): void {
    if (!this.total) return;
    const started = performance.now();
    this.index = Math.max(0, Math.min(this.total - 1, index));
    this.renderFrame();
    this.position.dataset.stepMs = (performance.now() - started).toFixed(2);
  }

  private togglePlay(): void {
    if (this.timer) return this.stop();
    if (this.index >= this.total - 1) this.go(0);
    this.timer = setInterval(() => {
      if (this.index >= this.total - 1) this.stop();
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
    return this.labels.get(id) ?? id;
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
      (["trace.col.step", "trace.col.node", "trace.col.incoming", "trace.col.result"] as const).map((k) => h("th", { scope: "col" }, t(k))),
    );
    this.rows = this.frames.map((event, i) => {
      const step = event.kind === "start" ? "0" : String(event.step);
      const node = event.kind === "start" ? t("trace.start") : this.label(event.node);
      return h(
        "tr",
        { "data-index": String(i), class: event.kind, onclick: () => this.go(i + (this.forward?.length ?? 0)) },
        h("td", {}, step),
        h("td", {}, node),
        h("td", {}, this.incoming(event)),
        h("td", {}, this.result(event)),
      );
    });
    this.currentRow = null;
    this.table.append(h("thead", {}, head), h("tbody", {}, this.rows));
    this.table.hidden = !this.frames.length;
    this.renderForwardTable();
  }

  /** The forward steps' table (before the backward one): step, line, code, recorded, bytes. */
  private renderForwardTable(): void {
    clear(this.fwdTable);
    const forward = this.forward;
    this.fwdTable.hidden = !forward;
    this.notice.textContent = forward?.notice() ?? "";
    this.notice.hidden = !this.notice.textContent;
    if (!forward) return;
    const cols = ["fwd.col.step", "fwd.col.line", "fwd.col.code", "fwd.col.nodes", "fwd.col.held"] as const;
    const rows = forward.rows((i) => this.go(i));
    this.fwdTable.append(
      h("caption", {}, sw("fwd.table")),
      h("thead", {}, h("tr", {}, cols.map((k) => h("th", { scope: "col" }, sw(k))))),
      h("tbody", {}, rows),
    );
    this.rows = [...rows, ...this.rows];
  }

  /** A run recorded with the stepper on: its lines first, then its backward pass (the run's own
   * trace, or the last trace the program showed) on the same graph. */
  showForward(doc: ForwardData, source: string[] = doc.source): void {
    const trace = doc.trace ?? (this.data && hasMarks(this.data) ? this.data : null);
    this.forwardDoc = { doc, source };
    if (trace) this.show(trace, true);
    else {
      this.stop();
      this.data = null;
      this.frames = [];
      this.passPicker.hidden = true;
      this.replayed = new Replay(null, null);
      this.labels = new Map((doc.graph?.nodes ?? []).map((n) => [n.id, n.label]));
      if (doc.graph) void this.drawing.show(doc.graph);
      else this.drawing.reset();
      this.forward = new ForwardPhase(doc, doc.graph, source);
      this.memory = stepperMemory(doc, [], null);
      this.follow(doc.graph);
      this.element.classList.toggle("has-trace", doc.steps.length > 0);
      this.index = 0;
      this.renderTable();
      this.renderFrame();
    }
  }

  private memory: StepperMemory | null = null;

  /** The Graph and Memory tabs follow a recorded run's stepper (a plain trace has none). */
  private follow(graph: GraphData | null): void {
    stepperLink.resetFollowers();
    if (this.forward && graph) stepperLink.showGraph(graph);
  }

  /** Tell the following tabs where the stepper is. */
  private publish(): void {
    if (!this.forward || !this.memory) return;
    stepperLink.showFrame({
      index: this.index,
      total: this.total,
      text: this.positionText(),
      phase: this.at < 0 ? "forward" : "backward",
      graph: this.stepGraph() ?? this.forward.graph,
      highlight: (drawing) => this.highlight(drawing),
      focus: (hl) => hl.error ?? hl.current ?? [...(hl.recorded ?? [])][0] ?? null,
      memory: this.memory,
      notice: this.notice.textContent || null,
    });
  }

  /** A node (or saved tensor) clicked in the forward phase: mark the line that recorded it. */
  private markRecorder(item: LayoutItem | null): void {
    const forward = this.forward;
    if (!forward || !item) return;
    const lines = [...new Set(nodesOfItem(item).map((id) => forward.lineOf(id)).filter((l): l is number => l !== null))];
    if (!lines.length) return;
    const text = sw("fwd.note.recorded", { node: item.title });
    stepperLink.showNotes(lines.map((line) => ({ line, kind: "recorded", text })), true);
  }

  /** A line clicked in the editor: light up the boxes it recorded. */
  private highlightLine(line: number): void {
    const forward = this.forward;
    if (!forward) return;
    const ids = new Set(forward.nodesAtLine(line).map((id) => this.itemOf(id)));
    if (!ids.size) return;
    this.drawing.canvas.setHighlight({ ...this.highlight(), recorded: ids });
    this.drawing.canvas.centerOn([...ids][0]);
  }

  private renderFrame(): void {
    const total = Math.max(0, this.total - 1);
    this.position.textContent = this.positionText();
    this.position.dataset.step = String(this.index);
    this.position.dataset.total = String(total);
    this.position.dataset.phase = this.at < 0 ? "forward" : "backward";
    const focused = document.activeElement;
    this.buttons[0].disabled = this.buttons[1].disabled = this.index <= 0;
    this.buttons[2].disabled = this.buttons[3].disabled = this.index >= total;
    // A button that disables itself under the keyboard's focus would drop focus to the page,
    // and the arrow keys would stop stepping: hand focus to the nearest button still enabled.
    if (focused instanceof HTMLButtonElement && focused.disabled && this.buttons.includes(focused)) {
      const atStart = this.buttons.indexOf(focused) < 2;
      const order = atStart ? [2, 3, 1, 0] : [1, 0, 2, 3];
      const next = order.map((i) => this.buttons[i]).find((button) => !button.disabled);
      (next ?? this.playButton).focus();
    }
    const row = this.rows[this.index] ?? null;
    if (row !== this.currentRow) {
      this.currentRow?.classList.remove("current");
      this.currentRow?.removeAttribute("aria-current");
      row?.classList.add("current");
      row?.setAttribute("aria-current", "step");
      this.currentRow = row;
    }
    this.replayed.to(this.frames, Math.max(0, this.at));
    const highlight = this.highlight();
    this.drawing.canvas.setHighlight(highlight);
    this.drawing.canvas.centerOn(highlight.error ?? highlight.current ?? [...(highlight.recorded ?? [])][0] ?? null);
    this.renderState();
    this.showLine();
    this.showErrorLines();
    this.publish();
  }

  private errorShown = false;

  /** A traced in-place error's lines in the editor (saved, modified, backward), at its step. */
  private showErrorLines(): void {
    const event = this.at >= 0 ? this.frames[this.at] : undefined;
    const marks = event?.kind === "error" ? (event.marks ?? []) : [];
    if (marks.length) {
      stepperLink.showNotes(errorNotes({ marks }), true);
      this.errorShown = true;
    } else if (this.errorShown && !this.forward) {
      stepperLink.showNotes([], false);
      this.errorShown = false;
    }
  }

  private positionText(): string {
    const forward = this.forward;
    if (forward && this.at < 0) {
      return sw("fwd.position", { step: this.index + 1, total: forward.length, line: forward.step(this.index).line });
    }
    if (!this.frames.length) return "";
    if (forward) return sw("bwd.position", { step: this.at, total: this.frames.length - 1 });
    return t("trace.position", { step: this.index, total: this.frames.length - 1 });
  }

  /** The editor marks the line of this step: the forward step's line, or the line that
   * recorded the node the backward step runs. */
  private showLine(): void {
    const forward = this.forward;
    if (!forward) return;
    if (this.at < 0) return stepperLink.showNotes([forward.note(this.index)], true);
    const event = this.frames[this.at];
    const line = event && event.kind !== "start" && event.node ? forward.lineOf(event.node) : null;
    const text = line !== null && event.kind !== "start" ? sw("fwd.note.recorded", { node: this.label(event.node) }) : "";
    stepperLink.showNotes(line !== null ? [{ line, kind: "recorded", text }] : [], true);
  }

  /** The drawn box of a graph node (itself, or the closed group holding it) in `drawing`. */
  private itemOf(nodeId: string, drawing = this.drawing): string {
    return drawing.view?.itemOf.get(nodeId) ?? nodeId;
  }

  /** The step's highlight on `drawing` (this tab's, or the Graph tab's that follows it). */
  private highlight(drawing = this.drawing): Highlight {
    if (this.forward && this.at < 0) {
      const hl = this.forward.highlight(this.index, drawing.canvas.items());
      return { ...hl, grads: this.gradLines(drawing) };
    }
    const itemOf = (id: string) => this.itemOf(id, drawing);
    const event = this.frames[this.at];
    if (!event) return {};
    const { counts, buffers, done } = this.replayed;
    const view = drawing.view;
    const badges = new Map<string, string>();
    for (const id of new Set([...this.replayed.waiting, ...buffers.keys()])) {
      if (itemOf(id) !== id) continue; // inside a closed group
      const count = counts.get(id) ?? 0;
      const buffer = buffers.get(id);
      badges.set(id, `${count > 0 ? `count ${count}` : ""}${buffer ? ` buf ${formatValues(buffer, 4)}` : ""}`.trim());
    }
    const sent = new Map<string, string>();
    if (event.kind === "step") {
      const graph = this.graph;
      for (const send of event.sends) {
        const edge = graph?.nodes.find((n) => n.id === event.node)?.inputs[send.input_nr]?.edge;
        const link = edge ? (view?.linkOf.get(edge) ?? edge) : undefined;
        if (link && send.grad) sent.set(link, formatValues(send.grad, 4));
      }
      if (event.accumulated) {
        const node = graph?.nodes.find((n) => n.id === event.node);
        if (node?.tensor) sent.set(`g:${node.tensor}`, formatValues(event.accumulated, 4));
      }
    }
    const ready = event.kind === "start" ? event.ready : event.kind === "error" ? [] : event.ready;
    const current = event.kind === "start" || event.kind === "error" ? null : itemOf(event.node);
    const error = event.kind === "error" && event.node ? itemOf(event.node) : null;
    // A closed group holding the node at work lights up and names it.
    const at = event.kind === "start" ? null : event.node;
    const item = error ?? current;
    if (at && item && item !== at) badges.set(item, `▶ ${this.label(at)}`);
    const doneItems = this.wholeItems(done, drawing);
    if (current) doneItems.delete(current);
    return {
      current,
      ready: ready.map((id) => itemOf(id)),
      done: doneItems,
      released: this.wholeItems(this.replayed.released, drawing),
      error,
      sent,
      badges,
      grads: this.gradLines(drawing),
    };
  }

  /** The drawn boxes all of whose nodes are in `nodes` (a group only once every member is). */
  private wholeItems(nodes: Set<string>, drawing = this.drawing): Set<string> {
    const count = new Map<string, number>();
    for (const id of nodes) {
      const item = this.itemOf(id, drawing);
      count.set(item, (count.get(item) ?? 0) + 1);
    }
    const sizes = this.groupSizes(drawing);
    return new Set([...count].filter(([item, n]) => n >= (sizes.get(item) ?? 1)).map(([item]) => item));
  }

  private sizes = new WeakMap<object, Map<string, number>>(); // a drawing's view -> its group sizes

  private groupSizes(drawing: GraphDrawing): Map<string, number> {
    const view = drawing.view;
    if (!view) return new Map();
    let sizes = this.sizes.get(view);
    if (!sizes) {
      sizes = new Map();
      for (const item of view.itemOf.values()) sizes.set(item, (sizes.get(item) ?? 0) + 1);
      this.sizes.set(view, sizes);
    }
    return sizes;
  }

  /** Every box with a gradient line, with the gradient as of this step ("grad None" before). */
  private gradLines(drawing = this.drawing): Map<string, string> {
    const lines = new Map<string, string>();
    for (const tensor of this.graph?.tensors ?? []) {
      const item = tensor.role === "intermediate" ? tensor.node : tensor.id;
      if (!item || (tensor.role === "intermediate" && this.itemOf(item, drawing) !== item)) continue;
      lines.set(item, gradLine(this.replayed.grads.get(tensor.id) ?? null));
    }
    return lines;
  }

  private renderState(): void {
    clear(this.state);
    if (this.forward && this.at < 0) {
      this.state.append(...this.forward.state(this.index));
      if (this.selected) this.appendSelected();
      return;
    }
    const event = this.frames[this.at];
    if (!event) return;
    const { counts, buffers } = this.replayed;
    const title = event.kind === "start" ? t("trace.start") : `${event.step}. ${this.label(event.node)}`;
    this.state.append(h("h3", { class: "step-title" }, title));
    if (event.kind !== "start") {
      this.state.append(
        h("p", { class: "step-incoming" }, `${t("trace.col.incoming")}: ${this.incoming(event)}`),
        h("p", { class: "step-result", "data-testid": "step-result" }, this.result(event)),
      );
    }
    const ready = event.kind === "error" ? [] : event.ready;
    // Small graphs list every count; large ones the nodes still waiting, the first few of them.
    const shown = counts.size <= MAX_LISTED ? [...counts] : [...this.replayed.waiting].map((id) => [id, counts.get(id) ?? 0] as const);
    this.state.append(
      h("h4", {}, t("trace.ready")),
      h("p", { class: "ready-stack" }, ready.length ? ready.map((id) => this.label(id)).join(" · ") : t("trace.ready.empty")),
      h("h4", {}, t("trace.counts")),
      h("ul", { class: "counts" }, shown.slice(0, MAX_LISTED).map(([id, count]) => h("li", {}, `${this.label(id)}: ${count}`))),
    );
    if (shown.length > MAX_LISTED) this.state.append(h("p", { class: "muted" }, gt("trace.morecounts", { n: shown.length - MAX_LISTED })));
    if (buffers.size) {
      this.state.append(
        h("h4", {}, t("trace.buffers")),
        h(
          "ul",
          { class: "buffers", "data-testid": "buffers" },
          [...buffers].slice(0, MAX_LISTED).map(([id, b]) => h("li", {}, `${this.label(id)}: ${formatValues(b)}`)),
        ),
      );
    }
    if (this.selected) this.appendSelected();
  }

  private appendSelected(): void {
    if (!this.selected) return;
    const graph = this.stepGraph();
    const tensor = this.selected.tensor && graph?.tensors.find((x) => x.id === this.selected?.tensor?.id);
    this.state.append(h("hr"), ...describeItem(tensor ? { ...this.selected, tensor } : this.selected, graph));
  }
}

const MAX_LISTED = 30;

/**
 * Counts, buffers and processed nodes after frames[0..index], replayed from the events. Moving
 * one step forward applies one event; moving back (or jumping) replays from the start once.
 * A buffer stays until its node runs: the node on top of the ready stack still waits with it
 * (the diamond's AccumulateGrad holds [5, 5] between steps 4 and 5).
 */
class Replay {
  index = 0;
  counts = new Map<string, number>();
  buffers = new Map<string, TensorValues>();
  done = new Set<string>();
  waiting = new Set<string>(); // nodes whose count is above 0
  grads = new Map<string, TensorValues | null>(); // tensor id -> its .grad after this step
  released = new Set<string>(); // nodes whose saved tensors are freed
  private readonly tensorOf = new Map<string, GraphTensor>(); // node id -> its leaf or retained tensor

  constructor(
    private readonly start: TraceEvent | null,
    private readonly pass: TracePass | null,
  ) {
    for (const x of pass?.graph.tensors ?? []) {
      if (x.node && (x.role === "leaf" || x.retains_grad)) this.tensorOf.set(x.node, x);
    }
    this.reset();
  }

  private reset(): void {
    this.index = 0;
    this.counts = new Map(this.start?.kind === "start" ? Object.entries(this.start.counts) : []);
    this.buffers = new Map();
    this.done = new Set();
    this.waiting = new Set([...this.counts].filter(([, c]) => c > 0).map(([id]) => id));
    const graph = this.pass?.graph;
    this.grads = new Map((graph?.tensors ?? []).map((x) => [x.id, x.grad]));
    this.released = new Set((graph?.nodes ?? []).filter((n) => n.released).map((n) => n.id));
  }

  /** A leaf's .grad is written by its AccumulateGrad; a retained non-leaf's by its node's
   * pre-hook (the value the pass left, as the events do not carry it). */
  private write(event: TraceStep): void {
    const tensor = this.tensorOf.get(event.node);
    if (!tensor || event.kind !== "step") return;
    if (tensor.role === "leaf") {
      if (event.accumulated) this.grads.set(tensor.id, event.accumulated);
    } else if (this.pass?.grads) this.grads.set(tensor.id, this.pass.grads[tensor.id] ?? null);
  }

  to(frames: TraceEvent[], index: number): void {
    if (index < this.index) this.reset();
    while (this.index < index) {
      this.index++;
      this.apply(frames[this.index]);
    }
  }

  private apply(event: TraceEvent | undefined): void {
    if (!event || (event.kind !== "step" && event.kind !== "skip")) return;
    this.buffers.delete(event.node);
    this.waiting.delete(event.node);
    this.done.add(event.node);
    this.write(event);
    if (event.released) this.released.add(event.node);
    for (const send of event.sends) {
      this.counts.set(send.to, send.count_after);
      if (send.buffer) this.buffers.set(send.to, send.buffer);
      else this.buffers.delete(send.to);
      if (send.count_after > 0) this.waiting.add(send.to);
      else this.waiting.delete(send.to);
    }
  }
}

/** A trace made while the forward pass was recorded: its nodes say which line made them. */
function hasMarks(data: TraceData): boolean {
  return data.passes.some((p) => p.graph.nodes.some((n) => n.recorded));
}
