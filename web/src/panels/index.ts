// The output panels, in tab order. A new panel: a file here implementing Panel, one line below.

import type { ConsoleView } from "../console/console";
import { isGraph, isMemory, isTrace } from "../graph/types";
import { GraphView } from "../graph/view";
import { MemoryView } from "../memory/view";
import { PlotView } from "../plot/plot";
import { TraceView } from "../trace/view";
import { DISPLAY_KIND, type Display } from "../worker/protocol";
import type { Panel } from "./panel";

export function consolePanel(view: ConsoleView): Panel {
  return {
    id: "console",
    label: "tab.console",
    element: view.element,
    rank: 0,
    accept: () => false, // the console is written by stdout/stderr, not by displays
    reset: () => view.clear(),
    refreshText: () => view.refreshText(),
  };
}

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

export function tracePanel(view = new TraceView()): Panel {
  return {
    id: "trace",
    label: "tab.trace",
    element: view.element,
    rank: 3,
    accept(display: Display) {
      if (display.kind !== DISPLAY_KIND.trace || !isTrace(display.data)) return false;
      view.show(display.data);
      return true;
    },
    reset: () => view.reset(),
    refreshText: () => view.refreshText(),
    shown: () => view.refit(),
    place: () => view.place(),
    restore: (place) => view.restore(place),
  };
}

export function plotPanel(view = new PlotView()): Panel {
  return {
    id: "plot",
    label: "tab.plot",
    element: view.element,
    rank: 1,
    selectEarly: true,
    accept(display: Display) {
      if (display.kind === DISPLAY_KIND.progress) view.progress(display.value, display.total, display.label);
      if (display.kind !== DISPLAY_KIND.plot) return false;
      view.add(display.series, display.x, display.y, display.xlabel);
      return true;
    },
    reset: () => view.reset(),
    refreshText: () => view.refreshText(),
  };
}

export function memoryPanel(view = new MemoryView()): Panel {
  return {
    id: "memory",
    label: "tab.memory",
    element: view.element,
    rank: 4,
    accept(display: Display) {
      if (display.kind !== DISPLAY_KIND.memory || !isMemory(display.data)) return false;
      view.add(display.data);
      return true;
    },
    reset: () => view.reset(),
    refreshText: () => view.refreshText(),
  };
}

/** Every output panel, the console first (the tab shown when a run draws nothing). */
export function outputPanels(console: ConsoleView): Panel[] {
  return [consolePanel(console), graphPanel(), tracePanel(), plotPanel(), memoryPanel()];
}
