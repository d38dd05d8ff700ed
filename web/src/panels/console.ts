// The Console tab: what the program prints, its traceback, the page's notes.

import type { ConsoleView } from "../console/console";
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
