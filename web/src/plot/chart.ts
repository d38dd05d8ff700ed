// One line chart in SVG: named series of (x, y) points on shared axes, redrawn at most once a
// frame. The Plot tab draws the learner's playground.plot series with one and the loss per
// optimizer step with another.

import { clear, s } from "../ui/dom";

const MAX_DRAWN_POINTS = 2000;
const W = 560;
const H = 300;
const M = { left: 64, right: 16, top: 16, bottom: 44 };

export type Point = { x: number; y: number | null }; // y null: not finite

export function formatNumber(v: number): string {
  return Math.abs(v) >= 1000 || (Math.abs(v) < 0.01 && v !== 0) ? v.toExponential(1) : Number(v.toPrecision(3)).toString();
}

export class LineChart {
  readonly svg: SVGSVGElement;
  private series = new Map<string, Point[]>();
  private frame = 0;
  xlabel = "";
  ylabel: string | null = null; // null: the series' names

  constructor(private readonly onDraw: (series: ReadonlyMap<string, Point[]>) => void = () => {}) {
    this.svg = s("svg", { class: "plot-svg", viewBox: `0 0 ${W} ${H}`, role: "img" });
  }

  get size(): number {
    return this.series.size;
  }

  reset(): void {
    this.series.clear();
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    clear(this.svg);
  }

  add(name: string, points: Point[]): void {
    if (!this.series.has(name)) this.series.set(name, []);
    this.series.get(name)!.push(...points);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  /** Rename a series, keeping its points and place. */
  rename(from: string, to: string): void {
    if (from === to || !this.series.has(from)) return;
    this.series = new Map([...this.series].map(([k, v]) => [k === from ? to : k, v]));
  }

  points(name: string): readonly Point[] {
    return this.series.get(name) ?? [];
  }

  private draw(): void {
    this.frame = 0;
    clear(this.svg);
    const all = [...this.series.values()].flat().filter((p) => p.y !== null) as { x: number; y: number }[];
    this.onDraw(this.series);
    if (!all.length) return;
    let [x0, x1] = [Math.min(...all.map((p) => p.x)), Math.max(...all.map((p) => p.x))];
    let [y0, y1] = [Math.min(...all.map((p) => p.y)), Math.max(...all.map((p) => p.y))];
    if (x0 === x1) x1 = x0 + 1;
    if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5];
    const px = (x: number) => M.left + ((x - x0) / (x1 - x0)) * (W - M.left - M.right);
    const py = (y: number) => H - M.bottom - ((y - y0) / (y1 - y0)) * (H - M.top - M.bottom);
    this.svg.append(
      s("line", { x1: M.left, y1: H - M.bottom, x2: W - M.right, y2: H - M.bottom, class: "axis" }),
      s("line", { x1: M.left, y1: M.top, x2: M.left, y2: H - M.bottom, class: "axis" }),
      s("text", { x: M.left - 6, y: py(y1) + 4, "text-anchor": "end", class: "tick" }, formatNumber(y1)),
      s("text", { x: M.left - 6, y: py(y0) + 4, "text-anchor": "end", class: "tick" }, formatNumber(y0)),
      s("text", { x: px(x0), y: H - M.bottom + 16, "text-anchor": "start", class: "tick" }, formatNumber(x0)),
      s("text", { x: px(x1), y: H - M.bottom + 16, "text-anchor": "end", class: "tick" }, formatNumber(x1)),
      s("text", { x: (M.left + W - M.right) / 2, y: H - 6, "text-anchor": "middle", class: "axis-title", "data-axis": "x" }, this.xlabel),
      s(
        "text",
        { x: 0, y: 0, "text-anchor": "middle", class: "axis-title", "data-axis": "y", transform: `translate(14 ${(M.top + H - M.bottom) / 2}) rotate(-90)` },
        this.ylabel ?? [...this.series.keys()].join(", "),
      ),
    );
    let i = 0;
    for (const [name, points] of this.series) {
      const stride = Math.ceil(points.length / MAX_DRAWN_POINTS); // at most ~2000 points a series
      const d = points
        .filter((p, j) => p.y !== null && (j % stride === 0 || j === points.length - 1))
        .map((p, j) => `${j ? "L" : "M"} ${px(p.x).toFixed(1)} ${py(p.y as number).toFixed(1)}`)
        .join(" ");
      this.svg.append(s("path", { d, class: `series series-${i % 4}`, "data-series": name, "data-points": points.length }));
      i++;
    }
  }
}

/** "name: last value (N points)" per series, as the legends say it. */
export function legendText(series: ReadonlyMap<string, Point[]>): string {
  return [...series]
    .map(([name, points]) => {
      const last = points[points.length - 1];
      return `${name}: ${!last || last.y === null ? "NaN" : formatNumber(last.y)} (${points.length} points)`;
    })
    .join(" · ");
}
