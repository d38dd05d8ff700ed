// The Plot tab: live line plots fed by playground.plot(series, x, y) while code runs, and a
// progress bar fed by playground.progress(value, total, label).

import { clear, h, s } from "../ui/dom";
import { t } from "../ui/i18n";

const MAX_DRAWN_POINTS = 2000;
const W = 560;
const H = 300;
const M = { left: 64, right: 16, top: 16, bottom: 44 };

export class PlotView {
  readonly element: HTMLElement;
  private readonly placeholder: HTMLElement;
  private readonly svg: SVGSVGElement;
  private readonly legend: HTMLElement;
  private readonly bar: HTMLProgressElement;
  private readonly barLabel: HTMLElement;
  private series = new Map<string, { x: number; y: number | null }[]>();
  private xlabel = "";
  private frame = 0;

  constructor() {
    this.placeholder = h("p", { class: "placeholder" });
    this.svg = s("svg", { class: "plot-svg", viewBox: `0 0 ${W} ${H}`, role: "img" });
    this.legend = h("p", { class: "plot-legend", "data-testid": "plot-legend" });
    this.bar = h("progress", { class: "plot-progress", max: "1", value: "0" });
    this.barLabel = h("span", { class: "plot-progress-label" });
    this.element = h(
      "div",
      { class: "plot-view" },
      this.placeholder,
      h("div", { class: "plot-main" }, h("div", { class: "plot-progress-row" }, this.bar, this.barLabel), this.svg, this.legend),
    );
    this.refreshText();
  }

  refreshText(): void {
    this.placeholder.textContent = t("plot.empty");
    this.svg.setAttribute("aria-label", t("plot.label"));
  }

  reset(): void {
    this.series.clear();
    this.xlabel = "";
    this.element.classList.remove("has-plot", "has-progress");
    clear(this.svg);
    this.legend.textContent = "";
  }

  add(name: string, x: number, y: number | null, xlabel?: string): void {
    if (xlabel) this.xlabel = xlabel;
    if (!this.series.has(name)) this.series.set(name, []);
    this.series.get(name)!.push({ x, y });
    this.element.classList.add("has-plot");
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  progress(value: number, total: number, label?: string): void {
    this.element.classList.add("has-progress");
    this.bar.max = total || 1;
    this.bar.value = value;
    this.barLabel.textContent = `${label ? `${label} ` : ""}${Math.round(value)}/${Math.round(total)}`;
  }

  private draw(): void {
    this.frame = 0;
    clear(this.svg);
    const all = [...this.series.values()].flat().filter((p) => p.y !== null) as { x: number; y: number }[];
    if (!all.length) return;
    let [x0, x1] = [Math.min(...all.map((p) => p.x)), Math.max(...all.map((p) => p.x))];
    let [y0, y1] = [Math.min(...all.map((p) => p.y)), Math.max(...all.map((p) => p.y))];
    if (x0 === x1) x1 = x0 + 1;
    if (y0 === y1) [y0, y1] = [y0 - 0.5, y1 + 0.5];
    const px = (x: number) => M.left + ((x - x0) / (x1 - x0)) * (W - M.left - M.right);
    const py = (y: number) => H - M.bottom - ((y - y0) / (y1 - y0)) * (H - M.top - M.bottom);
    const fmt = (v: number) => (Math.abs(v) >= 1000 || (Math.abs(v) < 0.01 && v !== 0) ? v.toExponential(1) : Number(v.toPrecision(3)).toString());

    this.svg.append(
      s("line", { x1: M.left, y1: H - M.bottom, x2: W - M.right, y2: H - M.bottom, class: "axis" }),
      s("line", { x1: M.left, y1: M.top, x2: M.left, y2: H - M.bottom, class: "axis" }),
      s("text", { x: M.left - 6, y: py(y1) + 4, "text-anchor": "end", class: "tick" }, fmt(y1)),
      s("text", { x: M.left - 6, y: py(y0) + 4, "text-anchor": "end", class: "tick" }, fmt(y0)),
      s("text", { x: px(x0), y: H - M.bottom + 16, "text-anchor": "start", class: "tick" }, fmt(x0)),
      s("text", { x: px(x1), y: H - M.bottom + 16, "text-anchor": "end", class: "tick" }, fmt(x1)),
      // Axis titles: x is what plot() was told (default "step"), y the series' names.
      s("text", { x: (M.left + W - M.right) / 2, y: H - 6, "text-anchor": "middle", class: "axis-title", "data-axis": "x" }, this.xlabel),
      s(
        "text",
        { x: 0, y: 0, "text-anchor": "middle", class: "axis-title", "data-axis": "y", transform: `translate(14 ${(M.top + H - M.bottom) / 2}) rotate(-90)` },
        [...this.series.keys()].join(", "),
      ),
    );
    const legend: string[] = [];
    let i = 0;
    for (const [name, points] of this.series) {
      const stride = Math.ceil(points.length / MAX_DRAWN_POINTS); // draw at most ~2000 points a series
      const d = points
        .filter((p, j) => p.y !== null && (j % stride === 0 || j === points.length - 1))
        .map((p, j) => `${j ? "L" : "M"} ${px(p.x).toFixed(1)} ${py(p.y as number).toFixed(1)}`)
        .join(" ");
      this.svg.append(s("path", { d, class: `series series-${i % 4}` }));
      const last = points[points.length - 1];
      legend.push(`${name}: ${last.y === null ? "NaN" : fmt(last.y)} (${points.length} points)`);
      i++;
    }
    this.legend.textContent = legend.join(" · ");
  }
}
