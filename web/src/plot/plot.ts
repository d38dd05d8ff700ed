// The Plot tab: the loss per optimizer step (drawn by itself when a program trains: display kind
// "loss"), the decision boundary a program asks for (playground.boundary: "boundary"), and the
// learner's own live line plots (playground.plot: "plot").

import { h } from "../ui/dom";
import { currentLang, type Localized, t } from "../ui/i18n";
import { type BoundaryData, BoundaryView } from "./boundary";
import { LineChart, legendText } from "./chart";
import { type LossBatch, LossRuns } from "./losses";
import "./plot.css";

const TEXT: Record<string, Localized> = {
  empty: {
    en: "No plot yet. A program that calls an optimizer's step() after backward() draws its loss here by itself; playground.plot(\"loss\", step, value) draws anything else.",
    zh: "还没有曲线。程序在 backward() 之后调用优化器的 step() 时，这里会自动画出损失；其他曲线可用 playground.plot(\"loss\", step, value)。",
  },
  loss: { en: "Loss per optimizer step", zh: "每次优化器 step 的损失" },
  lossLabel: { en: "Loss per optimizer step: the value backward() started from before each step()", zh: "每次 step() 之前 backward() 所用的损失值" },
  step: { en: "optimizer step", zh: "优化器 step" },
  boundary: { en: "Decision boundary", zh: "决策边界" },
  boundaryAt: { en: "Decision boundary after {steps} steps", zh: "{steps} 步之后的决策边界" },
  boundaryLabel: { en: "The class the model predicts over the data's box, with the data points", zh: "模型在数据范围内预测的类别，以及数据点" },
  yours: { en: "playground.plot", zh: "playground.plot" },
};

const say = (key: keyof typeof TEXT, vars: Record<string, string | number> = {}) =>
  TEXT[key][currentLang()].replace(/\{(\w+)\}/g, (_, k: string) => String(vars[k] ?? ""));

function figure(cls: string, title: HTMLElement, ...body: Element[]): HTMLElement {
  return h("figure", { class: `plot-figure ${cls}` }, h("figcaption", {}, title), ...body);
}

export class PlotView {
  readonly element: HTMLElement;
  private readonly placeholder = h("p", { class: "placeholder" });
  private readonly lossLegend = h("p", { class: "plot-legend", "data-testid": "loss-legend" });
  private readonly plotLegend = h("p", { class: "plot-legend", "data-testid": "plot-legend" });
  private readonly lossTitle = h("span", {});
  private readonly boundaryTitle = h("span", {});
  private readonly plotTitle = h("span", {});
  private readonly losses = new LineChart((series) => (this.lossLegend.textContent = legendText(series)));
  private readonly plots = new LineChart((series) => (this.plotLegend.textContent = legendText(series)));
  private readonly boundary = new BoundaryView();
  private readonly runs = new LossRuns();
  private boundarySteps: number | null = null;

  constructor() {
    this.losses.ylabel = "loss";
    this.element = h(
      "div",
      { class: "plot-view" },
      this.placeholder,
      h(
        "div",
        { class: "plot-main" },
        figure("plot-loss", this.lossTitle, this.losses.svg, this.lossLegend),
        figure("plot-boundary", this.boundaryTitle, this.boundary.svg),
        figure("plot-yours", this.plotTitle, this.plots.svg, this.plotLegend),
      ),
    );
    this.losses.svg.dataset.testid = "loss-curve";
    this.refreshText();
  }

  refreshText(): void {
    this.placeholder.textContent = say("empty");
    this.plots.svg.setAttribute("aria-label", t("plot.label"));
    this.losses.svg.setAttribute("aria-label", say("lossLabel"));
    this.boundary.svg.setAttribute("aria-label", say("boundaryLabel"));
    this.losses.xlabel = say("step");
    this.lossTitle.textContent = say("loss");
    this.plotTitle.textContent = say("yours");
    this.boundaryTitle.textContent = this.boundarySteps === null ? say("boundary") : say("boundaryAt", { steps: this.boundarySteps });
  }

  reset(): void {
    this.losses.reset();
    this.plots.reset();
    this.boundary.reset();
    this.runs.clear();
    this.boundarySteps = null;
    this.lossLegend.textContent = this.plotLegend.textContent = "";
    this.plots.xlabel = "";
    this.element.classList.remove("has-plot", "has-loss", "has-boundary", "has-yours");
    this.refreshText();
  }

  /** One point of the learner's playground.plot series. */
  add(name: string, x: number, y: number | null, xlabel?: string): void {
    if (xlabel) this.plots.xlabel = xlabel;
    this.plots.add(name, [{ x, y }]);
    this.element.classList.add("has-plot", "has-yours");
  }

  /** New loss points, per optimizer. */
  addLosses(batch: LossBatch): void {
    for (const { from, to } of this.runs.take(batch)) this.losses.rename(from, to);
    for (const run of batch.runs) this.losses.add(this.runs.name(run.id), run.points.map(([x, y]) => ({ x, y })));
    this.element.classList.add("has-plot", "has-loss");
  }

  showBoundary(data: BoundaryData): void {
    this.boundary.show(data);
    this.boundarySteps = data.steps;
    this.boundaryTitle.textContent = say("boundaryAt", { steps: data.steps });
    this.element.classList.add("has-plot", "has-boundary");
  }
}
