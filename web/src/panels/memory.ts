// The Memory tab: kael.viz.memory logs, side by side; for a run recorded for the stepper, first
// the bytes its saved tensors hold at each step, drawn up to the stepper's step.

import { isMemory } from "../graph/types";
import { MemoryView } from "../memory/view";
import { FollowBar } from "../stepper/bar";
import { stepperLink } from "../stepper/link";
import { StepperMemoryCard } from "../stepper/memory";
import { DISPLAY_KIND, type Display } from "../worker/protocol";
import type { Panel } from "./panel";

export function memoryPanel(view = new MemoryView()): Panel {
  const card = new StepperMemoryCard();
  const bar = new FollowBar("memory");
  let logs = 0;
  view.element.querySelector(".placeholder")?.after(bar.element, card.element);
  const shown = () => view.element.classList.toggle("has-memory", logs > 0 || !card.element.hidden);
  // Drawn, not "accepted": a recorded run still lands on the Trace tab, where its stepper is.
  stepperLink.follow({
    graph: () => {},
    frame(frame) {
      bar.update(frame);
      card.update(frame);
      shown();
    },
    reset() {
      bar.update(null);
      card.update(null);
      shown();
    },
  });
  return {
    id: "memory",
    label: "tab.memory",
    element: view.element,
    rank: 4,
    accept(display: Display) {
      if (display.kind !== DISPLAY_KIND.memory || !isMemory(display.data)) return false;
      view.add(display.data);
      logs += 1;
      return true;
    },
    reset() {
      logs = 0;
      view.reset();
      shown();
    },
    refreshText() {
      view.refreshText();
      shown();
    },
  };
}
