// The Graph tab: the autograd graph kael.viz.show drew, else the graph a trace captured.

import { isGraph, isTrace } from "../graph/types";
import { GraphView } from "../graph/view";
import { DISPLAY_KIND, type Display } from "../worker/protocol";
import type { Panel } from "./panel";

export function graphPanel(view = new GraphView()): Panel {
  let own = false; // the program showed a graph itself (not only a trace's)
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
    shown: () => view.canvas.refit(),
  };
}
