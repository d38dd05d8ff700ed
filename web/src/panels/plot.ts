// The Plot tab: the loss per optimizer step and the decision boundary a training run draws
// (playground.py's watch, playground.boundary), and live line plots (playground.plot). The run's
// progress bar is the output pane's (OutputPanels), not this tab's.

import { isBoundary } from "../plot/boundary";
import { isLossBatch } from "../plot/losses";
import { PlotView } from "../plot/plot";
import { DISPLAY_KIND, type Display } from "../worker/protocol";
import type { Panel } from "./panel";

interface PlotPoint {
  series: string;
  x: number;
  y: number | null; // null: not finite (playground.py sends NaN and infinities as null)
  xlabel?: string;
}

function isPlotPoint(d: Display): d is Display & PlotPoint {
  return typeof d.series === "string" && typeof d.x === "number" && (typeof d.y === "number" || d.y === null);
}

export function plotPanel(view = new PlotView()): Panel {
  return {
    id: "plot",
    label: "tab.plot",
    element: view.element,
    rank: 1,
    selectEarly: true,
    accept(display: Display) {
      if (display.kind === DISPLAY_KIND.loss && isLossBatch(display.data)) view.addLosses(display.data);
      else if (display.kind === DISPLAY_KIND.boundary && isBoundary(display.data)) view.showBoundary(display.data);
      else if (display.kind === DISPLAY_KIND.plot && isPlotPoint(display)) view.add(display.series, display.x, display.y, display.xlabel);
      else return false;
      return true;
    },
    reset: () => view.reset(),
    refreshText: () => view.refreshText(),
  };
}
