// The Plot tab: live line plots and a progress bar (playground.plot, playground.progress).

import { PlotView } from "../plot/plot";
import { DISPLAY_KIND, type Display } from "../worker/protocol";
import type { Panel } from "./panel";

interface PlotPoint {
  series: string;
  x: number;
  y: number | null; // null: not finite (playground.py sends NaN and infinities as null)
  xlabel?: string;
}

interface Progress {
  value: number;
  total: number;
  label?: string;
}

function isPlotPoint(d: Display): d is Display & PlotPoint {
  return typeof d.series === "string" && typeof d.x === "number" && (typeof d.y === "number" || d.y === null);
}

function isProgress(d: Display): d is Display & Progress {
  return typeof d.value === "number" && typeof d.total === "number";
}

export function plotPanel(view = new PlotView()): Panel {
  return {
    id: "plot",
    label: "tab.plot",
    element: view.element,
    rank: 1,
    selectEarly: true,
    accept(display: Display) {
      if (display.kind === DISPLAY_KIND.progress && isProgress(display)) view.progress(display.value, display.total, display.label);
      if (display.kind !== DISPLAY_KIND.plot || !isPlotPoint(display)) return false;
      view.add(display.series, display.x, display.y, display.xlabel);
      return true;
    },
    reset: () => view.reset(),
    refreshText: () => view.refreshText(),
  };
}
