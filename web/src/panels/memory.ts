// The Memory tab: kael.viz.memory logs, side by side.

import { isMemory } from "../graph/types";
import { MemoryView } from "../memory/view";
import { DISPLAY_KIND, type Display } from "../worker/protocol";
import type { Panel } from "./panel";

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
