// The SVG drawing of a laid-out graph, with pan (drag, arrow keys), zoom (wheel, +/-, buttons),
// keyboard-focusable boxes, open modules as labelled clusters, closed groups that open on click,
// and highlights that the trace stepper sets. Only the boxes and links in (or near) the visible
// part of the layout exist as SVG elements: they are created as the view pans and zooms, a
// limited number per animation frame, so a layout of thousands of boxes never holds the page
// (shaping the text of a thousand boxes at once took seconds). Highlights are kept for every
// box and applied to those that exist, and to the others when they appear.

import { clear, h, s } from "../ui/dom";
import { bind } from "../ui/i18n";
import "./graph.css";
import { GRAD_PREFIX, type Layout, type LayoutCluster, type LayoutItem, type LayoutLink } from "./layout";
import type { Point } from "./positions";
import { gt } from "./strings";

export interface Highlight {
  current?: string | null; // item id being processed
  ready?: string[]; // item ids on the ready stack
  done?: Set<string>; // item ids already processed
  error?: string | null;
  sent?: Map<string, string>; // link id -> gradient label
  badges?: Map<string, string>; // item id -> small text (count, buffer)
  released?: Set<string>; // item ids whose saved tensors a backward already freed
  grads?: Map<string, string>; // item id -> its gradient line as of this step ("grad None")
  future?: Set<string>; // item ids not recorded yet (a forward step): hidden, with their links
  recorded?: Set<string>; // item ids the forward step's line just recorded
}

const FLAGS = ["done", "ready", "current", "error", "released", "future", "recorded"];

const LINE_H = 16;
const PAD_Y = 8;
const ITEMS_PER_FRAME = 80;
const LINKS_PER_FRAME = 240;
const DRAW_ALL_BELOW = 300;

export class GraphCanvas {
  readonly element: HTMLElement;
  private readonly svg: SVGSVGElement;
  private readonly root: SVGGElement;
  private layout: Layout | null = null;
  private layers: { links: SVGGElement; items: SVGGElement; badges: SVGGElement } | null = null;
  private drawnLinks = new Set<string>();
  private want: Want = emptyWant();
  private materializing: Promise<void> | null = null;
  private materializingFor = -1;
  private materializingToken: object | null = null;
  private again = false;
  private byId = new Map<string, LayoutItem>();
  private view = { x: 0, y: 0, k: 1 };
  private itemEls = new Map<string, SVGGElement>();
  private linkEls = new Map<string, { label: SVGTextElement; group: SVGGElement }>();
  private badgeEls = new Map<string, SVGTextElement>();
  private gradEls = new Map<string, SVGTextElement>(); // item id -> its "grad ..." line
  private flags = new Map<string, string>(); // item id -> highlight classes now applied
  private sentNow = new Set<string>();
  private hiddenNow = new Set<string>(); // links hidden with a future box
  private badgeNow = new Set<string>();
  private selected: string | null = null;
  private drawing = 0; // render generation: a newer render stops an older one
  onGroup: (groupId: string) => void = () => {};

  constructor(private readonly onSelect: (item: LayoutItem | null) => void, label: string) {
    const markerId = `arrow-${Math.random().toString(36).slice(2, 8)}`;
    this.root = s("g", { class: "viewport" });
    this.svg = s(
      "svg",
      { class: "graph-svg", role: "group", "data-marker": markerId },
      s(
        "defs",
        {},
        s(
          "marker",
          {
            id: markerId,
            viewBox: "0 0 10 10",
            refX: "9",
            refY: "5",
            markerWidth: "9",
            markerHeight: "9",
            markerUnits: "userSpaceOnUse",
            orient: "auto-start-reverse",
          },
          s("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "arrowhead" }),
        ),
      ),
      this.root,
    );
    bind(this.svg, label as never, "aria-label");
    const zoomIn = h("button", { type: "button", class: "icon", onclick: () => this.zoomBy(1.25) }, "+");
    const zoomOut = h("button", { type: "button", class: "icon", onclick: () => this.zoomBy(0.8) }, "−");
    const fit = h("button", { type: "button", class: "icon", onclick: () => this.fit() }, "⤢");
    bind(zoomIn, "graph.zoomin", "aria-label");
    bind(zoomOut, "graph.zoomout", "aria-label");
    bind(fit, "graph.fit", "aria-label");
    for (const b of [zoomIn, zoomOut, fit]) b.title = b.getAttribute("aria-label") ?? "";
    const tools = h("div", { class: "graph-tools" }, zoomIn, zoomOut, fit);
    this.element = h("div", { class: "graph-canvas", tabindex: "0" }, this.svg, tools);
    this.installPanZoom();
  }

  get hasGraph(): boolean {
    return this.layout !== null;
  }

  /** Every box of the drawn layout (drawn as SVG yet or not). */
  items(): LayoutItem[] {
    return this.layout?.items ?? [];
  }

  item(id: string): LayoutItem | undefined {
    return this.byId.get(id);
  }

  clear(): void {
    this.drawing++;
    this.layout = null;
    this.byId.clear();
    clear(this.root);
    this.itemEls.clear();
    this.linkEls.clear();
    this.badgeEls.clear();
    this.flags.clear();
    this.sentNow.clear();
    this.hiddenNow.clear();
    this.badgeNow.clear();
    this.drawnLinks.clear();
    this.layers = null;
    this.want = emptyWant();
    this.gradEls.clear();
  }

  /** Draws `layout`: the clusters, then the boxes and links in view, a limited number per
   * animation frame; resolves when those are drawn (or a newer render replaced this one).
   * `keepView` keeps the zoom and pan (a group opened). */
  async render(layout: Layout, keepView = false): Promise<void> {
    const want = this.want; // a highlight set before the drawing applies to it
    this.clear();
    this.want = want;
    this.layout = layout;
    this.byId = new Map(layout.items.map((i) => [i.id, i]));
    this.selected = null;
    const clusters = s("g", { class: "clusters" });
    this.layers = { links: s("g", { class: "links" }), items: s("g", { class: "items" }), badges: s("g", { class: "badges", "aria-hidden": "true" }) };
    this.root.append(clusters, this.layers.links, this.layers.items, this.layers.badges);
    for (const c of layout.clusters) clusters.append(this.drawCluster(c));
    this.svg.dataset.items = String(layout.items.length);
    if (!keepView) this.fit();
    else this.apply();
    await this.materialize();
  }

  /** Creates the boxes and links that are in view (with half a view of margin) and not drawn
   * yet, a limited number per frame; a view change while it runs makes it look again. */
  private materialize(): Promise<void> {
    const generation = this.drawing;
    if (this.materializing && this.materializingFor === generation) {
      this.again = true;
      return this.materializing;
    }
    this.materializingFor = generation; // a loop for an older drawing stops by itself
    const token = {};
    this.materializingToken = token;
    const loop = (async () => {
      await Promise.resolve(); // `this.materializing` is set before the loop can end
      do {
        this.again = false;
        while (generation === this.drawing && this.drawSome()) await nextFrame();
      } while (this.again && generation === this.drawing);
      if (this.materializingToken === token) this.materializing = null;
    })();
    this.materializing = loop;
    return loop;
  }

  /** One frame's worth of boxes and links in view; true when more remain. */
  private drawSome(): boolean {
    const layout = this.layout;
    const layers = this.layers;
    if (!layout || !layers) return false;
    // A small layout is drawn whole (every box reachable by keyboard and screen reader).
    const all = layout.items.length <= DRAW_ALL_BELOW;
    const box = this.svg.getBoundingClientRect();
    const w = Math.max(box.width, 200) / this.view.k;
    const hgt = Math.max(box.height, 200) / this.view.k;
    const x0 = all ? -Infinity : -this.view.x / this.view.k - w / 2;
    const y0 = all ? -Infinity : -this.view.y / this.view.k - hgt / 2;
    const x1 = all ? Infinity : x0 + 2 * w;
    const y1 = all ? Infinity : y0 + 2 * hgt;
    let items = 0;
    for (const item of layout.items) {
      if (this.itemEls.has(item.id)) continue;
      if (item.x + item.width / 2 < x0 || item.x - item.width / 2 > x1 || item.y + item.height / 2 < y0 || item.y - item.height / 2 > y1) continue;
      if (items++ >= ITEMS_PER_FRAME) return true;
      this.addItem(item, layers);
    }
    let links = 0;
    const marker = `url(#${this.svg.dataset.marker})`;
    for (const l of layout.links) {
      if (this.drawnLinks.has(l.id) || !l.points.length) continue;
      const xs = l.points.map((p) => p.x);
      const ys = l.points.map((p) => p.y);
      if (Math.max(...xs) < x0 || Math.min(...xs) > x1 || Math.max(...ys) < y0 || Math.min(...ys) > y1) continue;
      if (links++ >= LINKS_PER_FRAME) return true;
      this.drawnLinks.add(l.id);
      layers.links.append(this.drawLink(l, marker));
    }
    this.svg.dataset.drawn = String(this.itemEls.size);
    return false;
  }

  private addItem(item: LayoutItem, layers: { items: SVGGElement; badges: SVGGElement }): void {
    const el = this.drawItem(item);
    layers.items.append(el);
    const badge = s("text", { x: item.x + item.width / 2, y: item.y - item.height / 2 - 4, class: "badge", "text-anchor": "end" });
    this.badgeEls.set(item.id, badge);
    layers.badges.append(badge);
    const flags = this.want.flags.get(item.id);
    if (flags) {
      for (const cls of flags.split(" ")) el.classList.add(cls);
      this.flags.set(item.id, flags);
    }
    const grad = this.want.grads.get(item.id);
    if (grad !== undefined) this.setGradText(item.id, grad);
    const text = this.want.badges.get(item.id);
    if (text) {
      badge.textContent = text;
      this.badgeNow.add(item.id);
    }
    if (item.id === this.selected) el.classList.add("selected");
  }

  private drawCluster(c: LayoutCluster): SVGGElement {
    const x = c.x - c.width / 2;
    const y = c.y - c.height / 2 - 14; // room for the label above the members
    const label = s("text", { x: x + 8, y: y + 14, class: "cluster-label" }, `▾ ${c.label}`);
    const group = s(
      "g",
      { class: "cluster", "data-id": c.id, tabindex: "0", role: "button", "aria-label": `${c.label}: ${gt("cluster.close")}` },
      s("title", {}, `${c.label}: ${gt("cluster.close")}`),
      s("rect", { x, y, width: c.width, height: c.height + 14, rx: 8, class: "cluster-box" }),
      label,
    );
    const close = (e: Event) => {
      e.stopPropagation();
      this.onGroup(c.id);
    };
    label.addEventListener("click", close);
    group.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") close(e);
    });
    return group;
  }

  private drawLink(l: LayoutLink, marker: string): SVGGElement {
    const path = s("path", { d: pathThrough(l.points), class: `link ${l.kind}`, "marker-end": marker });
    const mid = l.points[Math.floor(l.points.length / 2)] ?? { x: 0, y: 0 };
    const label = s("text", { x: mid.x + 6, y: mid.y - 4, class: "link-label" }); // gradient sent, in a trace
    const group = s("g", { class: "link-group", "data-id": l.id }, path, label);
    this.linkEls.set(l.id, { label, group });
    if (this.want.hidden.has(l.id)) group.classList.add("future");
    const sent = this.want.sent.get(l.id);
    if (sent !== undefined) {
      group.classList.add("sent");
      label.textContent = sent;
      this.sentNow.add(l.id);
    }
    return group;
  }

  private drawItem(item: LayoutItem): SVGGElement {
    const x = item.x - item.width / 2;
    const y = item.y - item.height / 2;
    const rx = item.kind === "tensor" ? item.height / 2 : item.kind === "const" ? 2 : 6;
    const shape = s("rect", { x, y, width: item.width, height: item.height, rx, class: "shape" });
    const title = s("text", { x: item.x, y: y + PAD_Y + 12, class: "title", "text-anchor": "middle" }, item.title);
    const lines = item.lines.map((line, i) =>
      s("text", { x: item.x, y: y + PAD_Y + 12 + (i + 1) * LINE_H, class: `line${line.includes("⚠") ? " warn" : ""}`, "text-anchor": "middle" }, line),
    );
    const gradLine = lines.find((el) => el.textContent?.startsWith(GRAD_PREFIX));
    if (gradLine) {
      gradLine.classList.add("grad-line");
      this.gradEls.set(item.id, gradLine);
    }
    const accessible = [item.title, ...item.lines].join(", ");
    const group = s(
      "g",
      {
        class: `item ${item.kind}${item.node?.released ? " released" : ""}${item.group ? ` ${item.group.kind}` : ""}`,
        "data-id": item.id,
        "data-name": item.node?.name ?? item.title,
        tabindex: "0",
        role: "button",
        "aria-label": accessible,
      },
      s("title", {}, accessible),
      shape,
      // A space between the lines (not drawn: text outside <text> is not painted) keeps the
      // visible words apart, as the name says them ("12 B, self", not "12 Bself": axe's
      // label-content-name-mismatch).
      ...[title, ...lines].flatMap((line) => [line, " "]),
    );
    const activate = () => (item.group ? this.onGroup(item.group.id) : this.select(item.id));
    group.addEventListener("click", (e) => {
      e.stopPropagation();
      activate();
    });
    group.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        activate();
      }
    });
    this.itemEls.set(item.id, group);
    return group;
  }

  /** Rewrites an item's gradient line, and what a screen reader hears of the item with it. */
  private setGradText(id: string, text: string): void {
    const el = this.gradEls.get(id);
    const group = this.itemEls.get(id);
    const item = this.byId.get(id);
    if (!el || !group || !item || el.textContent === text) return;
    el.textContent = text;
    const lines = item.lines.map((line) => (line.startsWith(GRAD_PREFIX) ? text : line));
    const accessible = [item.title, ...lines].join(", ");
    group.setAttribute("aria-label", accessible);
    const title = group.querySelector("title");
    if (title) title.textContent = accessible;
  }

  select(id: string | null): void {
    if (this.selected) this.itemEls.get(this.selected)?.classList.remove("selected");
    this.selected = id;
    if (id) this.itemEls.get(id)?.classList.add("selected");
    this.onSelect(id ? this.byId.get(id) ?? null : null);
  }

  /** Applies a highlight, touching only the boxes and links whose state changes. */
  setHighlight(hl: Highlight): void {
    const next = new Map<string, string>();
    const add = (id: string, cls: string) => next.set(id, next.has(id) ? `${next.get(id)} ${cls}` : cls);
    for (const id of hl.done ?? []) add(id, "done");
    for (const id of hl.ready ?? []) add(id, "ready");
    for (const id of hl.released ?? []) add(id, "released");
    for (const id of hl.future ?? []) add(id, "future");
    for (const id of hl.recorded ?? []) add(id, "recorded");
    if (hl.current) add(hl.current, "current");
    if (hl.error) add(hl.error, "error");
    const future = hl.future ?? new Set<string>();
    const hidden = new Set((this.layout?.links ?? []).filter((l) => future.has(l.from) || future.has(l.to)).map((l) => l.id));
    this.want = { flags: next, badges: hl.badges ?? new Map(), sent: hl.sent ?? new Map(), grads: hl.grads ?? new Map(), hidden };
    for (const id of new Set([...this.want.hidden, ...this.hiddenNow])) this.linkEls.get(id)?.group.classList.toggle("future", hidden.has(id));
    this.hiddenNow = hidden;
    for (const [id, text] of this.want.grads) this.setGradText(id, text);
    for (const id of new Set([...this.flags.keys(), ...next.keys()])) {
      const want = next.get(id) ?? "";
      if ((this.flags.get(id) ?? "") === want) continue;
      const el = this.itemEls.get(id);
      if (!el) continue;
      for (const cls of FLAGS) el.classList.toggle(cls, want.split(" ").includes(cls));
      if (want) this.flags.set(id, want);
      else this.flags.delete(id);
    }
    const badges = hl.badges ?? new Map<string, string>();
    for (const id of new Set([...this.badgeNow, ...badges.keys()])) {
      const el = this.badgeEls.get(id);
      if (!el) continue;
      const text = badges.get(id) ?? "";
      if (el.textContent !== text) el.textContent = text;
    }
    this.badgeNow = new Set([...badges.keys()].filter((id) => this.badgeEls.has(id)));
    const sent = hl.sent ?? new Map<string, string>();
    for (const id of new Set([...this.sentNow, ...sent.keys()])) {
      const link = this.linkEls.get(id);
      if (!link) continue;
      const text = sent.get(id);
      link.group.classList.toggle("sent", text !== undefined);
      link.label.textContent = text ?? "";
    }
    this.sentNow = new Set(sent.keys());
  }

  // ------------------------------------------------------------------ pan and zoom

  private apply(): void {
    this.root.setAttribute("transform", `translate(${this.view.x} ${this.view.y}) scale(${this.view.k})`);
    if (this.layout) void this.materialize();
  }

  fit(): void {
    if (!this.layout) return;
    const box = this.svg.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    const margin = 40; // room for the count/buffer badges and edge labels
    // Never below 0.6 (12 px text at 7 px): a long graph is read by panning, not squinting.
    const k = Math.max(0.6, Math.min(1.4, Math.min(box.width / (this.layout.width + margin), box.height / (this.layout.height + 20))));
    // Wider than the view: the topmost box (the output) in the middle, where reading starts.
    let x = (box.width - this.layout.width * k) / 2;
    if (this.layout.width * k > box.width && this.layout.items.length) {
      const top = this.layout.items.reduce((a, b) => (b.y < a.y ? b : a));
      x = box.width / 2 - top.x * k;
    }
    this.view = { k, x, y: Math.max(0, (box.height - this.layout.height * k) / 2) };
    this.apply();
  }

  /** Moves the view so that item `id` is in the centre (zooming in to a readable size). */
  centerOn(id: string | null): void {
    const item = id ? this.byId.get(id) : undefined;
    if (!item) return;
    const box = this.svg.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    const k = Math.max(this.view.k, 0.8);
    const target: Point = { x: box.width / 2 - item.x * k, y: box.height / 2 - item.y * k };
    const inside =
      k === this.view.k &&
      Math.abs(target.x - this.view.x) < box.width * 0.2 &&
      Math.abs(target.y - this.view.y) < box.height * 0.2;
    if (inside) return; // already near the centre: keep the view still while stepping
    this.view = { k, ...target };
    this.apply();
  }

  /** Moves the view to the top of the open group `id` (a module or band just opened), at a
   * readable zoom; false when no such cluster is drawn. */
  showCluster(id: string): boolean {
    const c = this.layout?.clusters.find((x) => x.id === id);
    if (!c) return false;
    const box = this.svg.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return true;
    const k = Math.max(this.view.k, 0.8);
    const left = c.x - c.width / 2;
    const x = c.width * k <= box.width ? box.width / 2 - c.x * k : 24 - left * k;
    this.view = { k, x, y: 40 - (c.y - c.height / 2) * k };
    this.apply();
    return true;
  }

  /** Fit when the canvas becomes visible (a hidden tab has no size). */
  refit(): void {
    requestAnimationFrame(() => this.fit());
  }

  zoomBy(factor: number, cx?: number, cy?: number): void {
    const box = this.svg.getBoundingClientRect();
    const px = cx ?? box.width / 2;
    const py = cy ?? box.height / 2;
    const k = Math.min(8, Math.max(0.02, this.view.k * factor));
    const ratio = k / this.view.k;
    this.view = { k, x: px - (px - this.view.x) * ratio, y: py - (py - this.view.y) * ratio };
    this.apply();
  }

  private installPanZoom(): void {
    let drag: { x: number; y: number; vx: number; vy: number; id: number } | null = null;
    this.svg.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const box = this.svg.getBoundingClientRect();
        this.zoomBy(Math.exp(-e.deltaY * 0.0015), e.clientX - box.left, e.clientY - box.top);
      },
      { passive: false },
    );
    this.svg.addEventListener("pointerdown", (e) => {
      if ((e.target as Element).closest(".item, .cluster-label")) return;
      drag = { x: e.clientX, y: e.clientY, vx: this.view.x, vy: this.view.y, id: e.pointerId };
      this.svg.setPointerCapture(e.pointerId);
      this.svg.classList.add("dragging");
    });
    this.svg.addEventListener("pointermove", (e) => {
      if (!drag || drag.id !== e.pointerId) return;
      this.view = { ...this.view, x: drag.vx + e.clientX - drag.x, y: drag.vy + e.clientY - drag.y };
      this.apply();
    });
    const end = (e: PointerEvent) => {
      if (drag && drag.id === e.pointerId) {
        drag = null;
        this.svg.classList.remove("dragging");
      }
    };
    this.svg.addEventListener("pointerup", end);
    this.svg.addEventListener("pointercancel", end);
    this.svg.addEventListener("click", () => this.select(null));
    this.element.addEventListener("keydown", (e) => {
      const step = 40;
      const moves: Record<string, [number, number]> = {
        ArrowLeft: [step, 0],
        ArrowRight: [-step, 0],
        ArrowUp: [0, step],
        ArrowDown: [0, -step],
      };
      if (e.target !== this.element) {
        if (e.key === "+" || e.key === "=") this.zoomBy(1.25);
        else if (e.key === "-") this.zoomBy(0.8);
        return;
      }
      if (moves[e.key]) {
        e.preventDefault();
        this.view = { ...this.view, x: this.view.x + moves[e.key][0], y: this.view.y + moves[e.key][1] };
        this.apply();
      } else if (e.key === "+" || e.key === "=") this.zoomBy(1.25);
      else if (e.key === "-") this.zoomBy(0.8);
      else if (e.key === "0") this.fit();
    });
  }
}

interface Want {
  flags: Map<string, string>;
  badges: Map<string, string>;
  sent: Map<string, string>;
  grads: Map<string, string>;
  hidden: Set<string>;
}

function emptyWant(): Want {
  return { flags: new Map(), badges: new Map(), sent: new Map(), grads: new Map(), hidden: new Set() };
}

function nextFrame(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => resolve()));
}

function pathThrough(points: Point[]): string {
  if (points.length === 0) return "";
  if (points.length < 3) return `M ${points.map((p) => `${p.x} ${p.y}`).join(" L ")}`;
  // A smooth curve through the dagre points (quadratic segments between midpoints).
  let d = `M ${points[0].x} ${points[0].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const mx = (points[i].x + points[i + 1].x) / 2;
    const my = (points[i].y + points[i + 1].y) / 2;
    d += ` Q ${points[i].x} ${points[i].y} ${mx} ${my}`;
  }
  const last = points[points.length - 1];
  return `${d} L ${last.x} ${last.y}`;
}
