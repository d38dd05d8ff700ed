// The Memory tab's stepper card: the bytes saved tensors hold at each of the stepper's steps,
// drawn up to the step shown (the curve grows as the learner steps forward, falls as the
// backward frees), with the step's figure in words. It reads only the recording's numbers.

import type { GraphData, TraceEvent } from "../graph/types";
import { formatBytes, h, s } from "../ui/dom";
import type { StepperFrame, StepperMemory } from "./link";
import type { ForwardData } from "./types";
import { sw } from "./words";

const W = 420;
const H = 160;
const PAD = { left: 64, right: 10, top: 10, bottom: 22 };

/** Held bytes per stepper step: each forward line's `held_bytes`, then, from the pass's start,
 * the bytes its graph's saved tensors hold, less those of each node the backward released. */
export function stepperMemory(data: ForwardData, frames: TraceEvent[], graph: GraphData | null, pass = 0): StepperMemory {
  const held = data.steps.map((step) => step.held_bytes);
  const backwardFrom = held.length;
  if (frames.length && graph) {
    const bytesOf = new Map(graph.nodes.map((n) => [n.id, n.saved.reduce((sum, sv) => sum + sv.bytes, 0)]));
    let now = graph.nodes.filter((n) => !n.released).reduce((sum, n) => sum + (bytesOf.get(n.id) ?? 0), 0);
    for (const event of frames) {
      if (event.kind === "step" && event.released) now -= bytesOf.get(event.node) ?? 0;
      held.push(now);
    }
  }
  const backwardLine = frames.length ? (data.backward?.during?.[pass]?.line ?? null) : null;
  return { held, backwardFrom, backwardLine };
}

export class StepperMemoryCard {
  readonly element: HTMLElement;
  private readonly words: HTMLElement;
  private readonly chart: HTMLElement;

  constructor() {
    this.words = h("p", { class: "memory-forward", "data-testid": "stepper-memory-held" });
    this.chart = h("div", {});
    this.element = h(
      "section",
      { class: "memory-card stepper-memory", "data-testid": "stepper-memory", hidden: true },
      h("h3", {}, ""),
      this.words,
      this.chart,
    );
  }

  update(frame: StepperFrame | null): void {
    this.element.hidden = !frame;
    if (!frame) return;
    const { held } = frame.memory;
    const index = Math.min(frame.index, held.length - 1);
    const bytes = held[index] ?? 0;
    this.element.querySelector("h3")!.textContent = sw("mem.title");
    this.words.textContent = sw("mem.held", { step: frame.text, bytes: formatBytes(bytes) });
    this.element.dataset.step = String(frame.index);
    this.element.dataset.bytes = String(bytes);
    this.chart.replaceChildren(chart(frame.memory, index));
  }
}

/** The step plot of `held[0..index]` (what is still to come is not drawn), on the scale of the
 * whole run so the curve does not jump as it grows. */
function chart({ held, backwardFrom, backwardLine }: StepperMemory, index: number): SVGSVGElement {
  const n = Math.max(1, held.length);
  const top = Math.max(1, ...held);
  const x = (i: number) => PAD.left + (i / n) * (W - PAD.left - PAD.right);
  const y = (b: number) => H - PAD.bottom - (b / top) * (H - PAD.top - PAD.bottom);
  let d = `M ${x(0)} ${y(0)}`;
  for (let i = 0; i <= index; i++) d += ` H ${x(i)} V ${y(held[i])}`;
  d += ` H ${x(index + 1)}`;
  const backward = backwardFrom < held.length;
  return s(
    "svg",
    { class: "memory-chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": sw("mem.axis") },
    backward ? s("rect", { x: x(backwardFrom), y: PAD.top, width: x(n) - x(backwardFrom), height: H - PAD.top - PAD.bottom, class: "phase-backward" }) : null,
    s("line", { x1: PAD.left, y1: y(0), x2: W - PAD.right, y2: y(0), class: "axis" }),
    s("line", { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: y(0), class: "axis" }),
    s("text", { x: PAD.left - 4, y: y(top) + 4, class: "tick", "text-anchor": "end" }, formatBytes(top)),
    s("text", { x: PAD.left - 4, y: y(0), class: "tick", "text-anchor": "end" }, "0"),
    s("text", { x: PAD.left + 4, y: H - 6, class: "tick" }, sw("mem.forward")),
    backward
      ? s(
          "text",
          // Near the right edge (a long forward, a short pass) the label ends at the edge instead.
          x(backwardFrom) > W * 0.6 ? { x: W - PAD.right, y: H - 6, class: "tick", "text-anchor": "end" } : { x: x(backwardFrom) + 4, y: H - 6, class: "tick" },
          backwardLine !== null ? sw("mem.backward.line", { line: backwardLine }) : sw("mem.backward"),
        )
      : null,
    s("path", { d, class: "held" }),
    s("line", { x1: x(index + 0.5), y1: PAD.top, x2: x(index + 0.5), y2: y(0), class: "now" }),
    s("circle", { cx: x(index + 0.5), cy: y(held[index] ?? 0), r: 3.5, class: "mark now" }),
  );
}
