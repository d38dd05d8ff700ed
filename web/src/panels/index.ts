// The output panels, in tab order. A new panel is a file here exporting a function that returns
// a Panel (./panel.ts), and one line in the list below; see CONTRIBUTING.md, "Add a web panel".

import type { ConsoleView } from "../console/console";
import { consolePanel } from "./console";
import { graphPanel } from "./graph";
import { memoryPanel } from "./memory";
import type { Panel } from "./panel";
import { plotPanel } from "./plot";
import { tracePanel } from "./trace";

/** Every output panel, the console first (the tab shown when a run draws nothing). */
export function outputPanels(console: ConsoleView): Panel[] {
  return [
    consolePanel(console),
    graphPanel(),
    tracePanel(),
    plotPanel(),
    memoryPanel(),
  ];
}
