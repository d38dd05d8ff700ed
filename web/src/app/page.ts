// The page's layout: the sidebar (examples, exercises) with its resizable edge, the editor pane
// under its context bar, and the output pane's tabs.

import { h } from "../ui/dom";
import { bind } from "../ui/i18n";
import { splitter } from "../ui/splitter";
import { storage } from "../ui/storage";
import { Tabs } from "../ui/tabs";

export interface PageParts {
  workspace: HTMLElement;
  examples: HTMLElement;
  exercises: HTMLElement;
  learn: HTMLElement; // the Learn tab (web/src/learn/)
  contextBar: HTMLElement;
  editor: HTMLElement;
  outputs: { list: HTMLElement; panels: HTMLElement };
  clearConsole: () => void;
}

/** Fills the workspace; returns the sidebar's tabs (a share link can select Exercises). */
export function layOut(p: PageParts): Tabs {
  const sideTabs = new Tabs("side", "nav.examples", [
    { id: "examples", label: "nav.examples", panel: p.examples },
    { id: "exercises", label: "nav.exercises", panel: p.exercises },
    { id: "learn", label: "nav.learn", panel: p.learn },
  ]);
  sideTabs.onSelect((id) => {
    storage.setMode(id);
    p.workspace.classList.toggle("learn-open", id === "learn");
  });
  if (storage.mode() === "learn") sideTabs.select("learn");
  const sidebar = h("aside", { class: "sidebar" }, sideTabs.list, sideTabs.panels);
  const divider = splitter({
    container: p.workspace,
    variable: "--side-width",
    edge: () => p.workspace.getBoundingClientRect().left,
    min: 240,
    max: () => p.workspace.clientWidth - 480,
    storageKey: "kael.sideWidth",
  });
  bind(divider, "split.label", "aria-label");
  sidebar.append(divider);
  const clearButton = h("button", { type: "button", class: "link clear", onclick: p.clearConsole });
  bind(clearButton, "action.clear");
  bind(clearButton, "action.clear.title", "title");
  p.workspace.append(
    sidebar,
    h("section", { class: "editor-pane", "aria-label": "editor" }, p.contextBar, p.editor),
    h("section", { class: "output-pane" }, h("div", { class: "output-head" }, p.outputs.list, clearButton), p.outputs.panels),
  );
  return sideTabs;
}
