// One graph on a canvas: the grouping model, which groups are open, the layout in the worker and
// the chunked drawing. The Graph and Trace tabs each own one. `state` on the element says where
// a drawing is ("grouping", "laying", "drawing", "drawn", "summary"), for people and for the e2e
// tests. Every step on the page's thread that is linear in the graph's size (grouping, the view,
// the box texts, placing the worker's result) runs as its own task, with `pause` between them:
// together they took 90 ms for a 10,000-node graph, one after the other in one task.

import { GraphCanvas } from "./canvas";
import { describeItems, layoutRequest, placeLayout, type LayoutItem } from "./layout";
import { layoutInWorker } from "./layouter";
import { GraphModel, MAX_ITEMS, type ViewGraph, type ViewState } from "./model";
import { formatCount, gt } from "./strings";
import type { GraphData } from "./types";

export class GraphDrawing {
  readonly canvas: GraphCanvas;
  model: GraphModel | null = null;
  view: ViewGraph | null = null;
  private state: ViewState | null = null;
  private generation = 0;
  /** Called when a drawing finished (the trace re-applies its highlight to the new boxes). */
  onDrawn: () => void = () => {};
  /** Called with a short status line ("Laying out 1,000 boxes…", a summary, or ""). */
  onStatus: (text: string) => void = () => {};

  constructor(onSelect: (item: LayoutItem | null) => void) {
    this.canvas = new GraphCanvas(onSelect, "graph.label");
    this.canvas.onGroup = (id) => {
      if (!this.model || !this.state) return;
      const next = this.model.toggle(this.state, id);
      const opened = next.open.has(id) && !this.state.open.has(id);
      void this.draw(next, true).then(() => {
        if (opened) this.canvas.showCluster(id); // what just opened, not where it was
      });
    };
  }

  get element(): HTMLElement {
    return this.canvas.element;
  }

  /** A new graph: open what fits, or show a summary when even closed groups are too many. */
  async show(data: GraphData): Promise<void> {
    const generation = ++this.generation;
    this.setState("grouping");
    await pause(); // the display message was just deserialized: that was a task of its own
    const model = await GraphModel.build(data, pause);
    if (generation !== this.generation) return;
    this.model = model;
    let state = model.initialState();
    if (model.countItems(state) > MAX_ITEMS) state = model.allClosed();
    const items = model.countItems(state);
    if (items > MAX_ITEMS) {
      this.generation++;
      this.state = state;
      this.view = null;
      this.canvas.clear();
      this.setState("summary");
      this.onStatus(gt("summary.title", { nodes: data.nodes.length, items, max: MAX_ITEMS }));
      return;
    }
    await this.draw(state, false);
  }

  reset(): void {
    this.generation++;
    this.model = null;
    this.view = null;
    this.state = null;
    this.canvas.clear();
    delete this.element.dataset.state;
  }

  openAll(open: boolean): void {
    if (!this.model) return;
    const state = open ? this.model.allOpen() : this.model.allClosed();
    if (this.model.countItems(state) > MAX_ITEMS) {
      this.onStatus(gt("summary.title", { nodes: this.model.data.nodes.length, items: this.model.countItems(state), max: MAX_ITEMS }));
      return;
    }
    void this.draw(state, false);
  }

  /** Opens what hides `nodeId`; resolves once it is drawn (at once if it already is). */
  async reveal(nodeId: string): Promise<void> {
    if (!this.model || !this.state || !this.view) return;
    if (this.view.itemOf.get(nodeId) === nodeId) return;
    const state = this.model.reveal(this.state, nodeId);
    if (this.model.countItems(state) > MAX_ITEMS) return; // stays in its group, highlighted there
    await this.draw(state, true);
  }

  private setState(state: string): void {
    this.element.dataset.state = state;
  }

  private async draw(state: ViewState, keepView: boolean): Promise<void> {
    const model = this.model!;
    const generation = ++this.generation;
    this.state = state;
    this.setState("laying");
    await pause();
    if (generation !== this.generation) return;
    const view = model.view(state);
    if (view.tooMany) {
      this.setState(this.canvas.hasGraph ? "drawn" : "summary"); // callers count first: rare
      return;
    }
    await pause();
    if (generation !== this.generation) return;
    const items = describeItems(view, model.data);
    this.onStatus(gt("laying", { items: formatCount(items.length) }));
    let result;
    try {
      result = await layoutInWorker(layoutRequest(view, items));
    } catch (err) {
      if (generation !== this.generation) return;
      this.setState("failed");
      this.onStatus(String(err instanceof Error ? err.message : err));
      return;
    }
    if (generation !== this.generation) return;
    this.view = view;
    this.setState("drawing");
    this.element.dataset.layoutMs = String(Math.round(result.ms));
    await pause();
    if (generation !== this.generation) return;
    await this.canvas.render(placeLayout(view, items, result), keepView);
    if (generation !== this.generation) return;
    this.setState("drawn");
    const grouped = view.items.some((i) => i.kind === "group");
    this.onStatus(grouped ? gt("grouped", { items: view.items.length, nodes: model.data.nodes.length }) : "");
    this.onDrawn();
  }
}

/** Ends the current task: the page may draw a frame and handle input before the next step (a
 * message to itself: no timer clamping, and no priority over rendering as scheduler.yield has). */
export function pause(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
