// The Trace tab: a backward pass step by step (kael.viz.trace); its step goes into share links.

import { isTrace } from "../graph/types";
import { isForward } from "../stepper/types";
import { TraceView } from "../trace/view";
import { DISPLAY_KIND, type Display } from "../worker/protocol";
import type { Panel } from "./panel";

export function tracePanel(view = new TraceView()): Panel {
  return {
    id: "trace",
    label: "tab.trace",
    element: view.element,
    rank: 3,
    accept(display: Display) {
      if (display.kind === DISPLAY_KIND.forward && isForward(display.data)) {
        view.showForward(display.data); // the stepper: forward lines, then the backward pass
        return true;
      }
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
