// The Graph tab: the autograd graph kael.viz.show drew, else the graph a trace captured. A run
// recorded for the stepper draws the stepper's graph here instead and follows its steps: the
// boxes a forward line has not recorded yet are hidden, those it records light up with their
// saved tensors and bytes, and the backward steps play on it; the bar above drives the one
// stepper (the Trace tab's), as its keys do.

import { isGraph, isTrace } from "../graph/types";
import { GraphView } from "../graph/view";
import { FollowBar } from "../stepper/bar";
import { stepperLink, type StepperFrame } from "../stepper/link";
import { isForward } from "../stepper/types";
import { sw } from "../stepper/words";
import { DISPLAY_KIND, type Display } from "../worker/protocol";
import type { Panel } from "./panel";

export function graphPanel(view = new GraphView()): Panel {
  let own = false; // the program showed a graph itself (not only a trace's)
  let frame: StepperFrame | null = null; // the stepper's step, while this tab follows it
  const bar = new FollowBar("graph");
  view.element.querySelector(".graph-main")?.prepend(bar.element);
  const apply = () => {
    if (!frame) return;
    const highlight = frame.highlight(view.drawing);
    view.canvas.setHighlight(highlight);
    view.canvas.centerOn(frame.focus(highlight));
  };
  view.drawing.onDrawn = apply; // a new layout's boxes get the step's highlight too
  stepperLink.follow({
    graph(data) {
      view.show(data, sw("graph.stepper"));
      view.element.classList.add("following");
    },
    frame(next) {
      frame = next;
      bar.update(next);
      view.showStep(next.graph);
      apply();
    },
    reset() {
      frame = null;
      bar.update(null);
      view.element.classList.remove("following");
    },
  });
  return {
    id: "graph",
    label: "tab.graph",
    element: view.element,
    rank: 2,
    accept(display: Display) {
      if (display.kind === DISPLAY_KIND.graph && isGraph(display.data)) {
        view.show(display.data, display.title ?? null);
        own = true;
        return true;
      }
      // A recorded run: the Trace tab's stepper hands this tab its graph (stepperLink above).
      if (display.kind === DISPLAY_KIND.forward && isForward(display.data)) return true;
      // A program that only shows a trace still gets its graph here: the graph the trace
      // captured when its last backward pass started.
      if (display.kind === DISPLAY_KIND.trace && isTrace(display.data) && !own && display.data.passes.length) {
        view.show(display.data.passes[display.data.passes.length - 1].graph, display.title ?? null);
        return true;
      }
      return false;
    },
    reset() {
      own = false;
      view.reset();
    },
    refreshText: () => view.refreshText(),
    shown() {
      view.canvas.refit();
      apply();
    },
  };
}
