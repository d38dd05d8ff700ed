// The SVG drawing of a laid-out graph, with pan (drag, arrow keys), zoom (wheel, +/-, buttons),
// keyboard-focusable nodes, and highlights that the trace stepper sets.

import { clear, h, s } from "../ui/dom";
import { bind } from "../ui/i18n";
import type { Layout, LayoutItem, LayoutLink } from "./layout";

export interface Highlight {
  current?: string | null; // item id being processed
  ready?: string[]; // item ids on the ready stack
  done?: string[]; // item ids already processed
  error?: string | null;
  sent?: Map<string, string>; // link id -> gradient label
  badges?: Map<string, string>; // item id -> small text (count, buffer)
}

const LINE_H = 16;
const PAD_Y = 8;

export class GraphCanvas {
  readonly element: HTMLElement;
  private readonly svg: SVGSVGElement;
  private readonly root: SVGGElement;
  private layout: Layout | null = null;
  private view = { x: 0, y: 0, k: 1 };
  private itemEls = new Map<string, SVGGElement>();
  private linkEls = new Map<string, { path: SVGPathElement; label: SVGTextElement; group: SVGGElement }>();
  private badgeEls = new Map<string, SVGTextElement>();
  private selected: string | null = null;

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

  clear(): void {
    this.layout = null;
    clear(this.root);
    this.itemEls.clear();
    this.linkEls.clear();
    this.badgeEls.clear();
  }

  render(layout: Layout): void {
    this.layout = layout;
    clear(this.root);
    this.itemEls.clear();
    this.linkEls.clear();
    this.badgeEls.clear();
    this.selected = null;
    const marker = `url(#${this.svg.dataset.marker})`;
    const links = s("g", { class: "links" });
    const items = s("g", { class: "items" });
    const badges = s("g", { class: "badges", "aria-hidden": "true" });
    this.root.append(links, items, badges);

    for (const l of layout.links) links.append(this.drawLink(l, marker));
    for (const item of layout.items) {
      items.append(this.drawItem(item));
      // Counts and buffers sit above a node's top-right corner, on a layer above every node.
      const badge = s("text", { x: item.x + item.width / 2, y: item.y - item.height / 2 - 4, class: "badge", "text-anchor": "end" });
      this.badgeEls.set(item.id, badge);
      badges.append(badge);
    }
    requestAnimationFrame(() => this.fit());
  }

  private drawLink(l: LayoutLink, marker: string): SVGGElement {
    const d = pathThrough(l.points);
    const path = s("path", { d, class: `link ${l.kind}`, "marker-end": marker });
    const mid = l.points[Math.floor(l.points.length / 2)] ?? { x: 0, y: 0 };
    const label = s("text", { x: mid.x + 6, y: mid.y - 4, class: "link-label" }); // gradient sent, in a trace
    const group = s("g", { class: "link-group", "data-id": l.id }, path, label);
    this.linkEls.set(l.id, { path, label, group });
    return group;
  }

  private drawItem(item: LayoutItem): SVGGElement {
    const x = item.x - item.width / 2;
    const y = item.y - item.height / 2;
    const shape =
      item.kind === "tensor"
        ? s("rect", { x, y, width: item.width, height: item.height, rx: item.height / 2, class: "shape" })
        : s("rect", { x, y, width: item.width, height: item.height, rx: item.kind === "const" ? 2 : 6, class: "shape" });
    const title = s("text", { x: item.x, y: y + PAD_Y + 12, class: "title", "text-anchor": "middle" }, item.title);
    const lines = item.lines.map((line, i) =>
      s("text", { x: item.x, y: y + PAD_Y + 12 + (i + 1) * LINE_H, class: "line", "text-anchor": "middle" }, line),
    );
    const accessible = [item.title, ...item.lines].join(", ");
    const group = s(
      "g",
      {
        class: `item ${item.kind}${item.node?.released ? " released" : ""}`,
        "data-id": item.id,
        "data-name": item.node?.name ?? item.title,
        tabindex: "0",
        role: "button",
        "aria-label": accessible,
      },
      s("title", {}, accessible),
      shape,
      title,
      ...lines,
    );
    const select = () => this.select(item.id);
    group.addEventListener("click", (e) => {
      e.stopPropagation();
      select();
    });
    group.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        select();
      }
    });
    this.itemEls.set(item.id, group);
    return group;
  }

  select(id: string | null): void {
    if (this.selected) this.itemEls.get(this.selected)?.classList.remove("selected");
    this.selected = id;
    const item = id ? this.layout?.items.find((i) => i.id === id) ?? null : null;
    if (id) this.itemEls.get(id)?.classList.add("selected");
    this.onSelect(item);
  }

  setHighlight(hl: Highlight): void {
    for (const [id, el] of this.itemEls) {
      el.classList.toggle("current", hl.current === id);
      el.classList.toggle("ready", !!hl.ready?.includes(id));
      el.classList.toggle("done", !!hl.done?.includes(id));
      el.classList.toggle("error", hl.error === id);
      const badge = this.badgeEls.get(id);
      if (badge) badge.textContent = hl.badges?.get(id) ?? "";
    }
    for (const [id, { group, label }] of this.linkEls) {
      const text = hl.sent?.get(id);
      group.classList.toggle("sent", text !== undefined);
      label.textContent = text ?? "";
    }
  }

  // ------------------------------------------------------------------ pan and zoom

  private apply(): void {
    this.root.setAttribute("transform", `translate(${this.view.x} ${this.view.y}) scale(${this.view.k})`);
  }

  fit(): void {
    if (!this.layout) return;
    const box = this.svg.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    const margin = 40; // room for the count/buffer badges and edge labels
    const k = Math.min(1.4, Math.min(box.width / (this.layout.width + margin), box.height / (this.layout.height + 20)));
    this.view = {
      k,
      x: (box.width - this.layout.width * k) / 2,
      y: Math.max(0, (box.height - this.layout.height * k) / 2),
    };
    this.apply();
  }

  /** Fit when the canvas becomes visible (a hidden tab has no size). */
  refit(): void {
    requestAnimationFrame(() => this.fit());
  }

  zoomBy(factor: number, cx?: number, cy?: number): void {
    const box = this.svg.getBoundingClientRect();
    const px = cx ?? box.width / 2;
    const py = cy ?? box.height / 2;
    const k = Math.min(8, Math.max(0.1, this.view.k * factor));
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
      if ((e.target as Element).closest(".item")) return;
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

function pathThrough(points: { x: number; y: number }[]): string {
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
