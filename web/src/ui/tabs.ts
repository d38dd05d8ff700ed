// Accessible tabs (WAI-ARIA tablist): arrow keys move between tabs, Home/End jump.

import { h } from "./dom";
import { bind, type Label } from "./i18n";

export interface TabSpec {
  id: string;
  label: Label;
  panel: HTMLElement;
}

export class Tabs {
  readonly list: HTMLElement;
  readonly panels: HTMLElement;
  private readonly buttons = new Map<string, HTMLButtonElement>();
  private readonly panelById = new Map<string, HTMLElement>();
  private listeners = new Set<(id: string) => void>();
  active: string;

  constructor(prefix: string, label: Label, specs: TabSpec[]) {
    this.list = h("div", { role: "tablist", class: "tablist" });
    bind(this.list, label, "aria-label");
    this.panels = h("div", { class: "tabpanels" });
    for (const spec of specs) {
      const button = h("button", {
        type: "button",
        role: "tab",
        id: `${prefix}-tab-${spec.id}`,
        "aria-controls": `${prefix}-panel-${spec.id}`,
        class: "tab",
        "data-tab": spec.id,
        onclick: () => this.select(spec.id, true),
      });
      const text = h("span", {});
      bind(text, spec.label);
      button.append(text, h("span", { class: "dot", "aria-hidden": "true" }));
      const panel = h("div", {
        role: "tabpanel",
        id: `${prefix}-panel-${spec.id}`,
        "aria-labelledby": `${prefix}-tab-${spec.id}`,
        class: "tabpanel",
      });
      panel.append(spec.panel);
      this.buttons.set(spec.id, button);
      this.panelById.set(spec.id, panel);
      this.list.append(button);
      this.panels.append(panel);
    }
    this.list.addEventListener("keydown", (e) => {
      const ids = [...this.buttons.keys()];
      const i = ids.indexOf(this.active);
      let next: string | null = null;
      if (e.key === "ArrowRight") next = ids[(i + 1) % ids.length];
      else if (e.key === "ArrowLeft") next = ids[(i - 1 + ids.length) % ids.length];
      else if (e.key === "Home") next = ids[0];
      else if (e.key === "End") next = ids[ids.length - 1];
      if (next) {
        e.preventDefault();
        this.select(next, true);
      }
    });
    this.active = specs[0].id;
    this.select(this.active);
  }

  onSelect(listener: (id: string) => void): void {
    this.listeners.add(listener);
  }

  select(id: string, focus = false): void {
    this.active = id;
    for (const [tab, button] of this.buttons) {
      const selected = tab === id;
      button.setAttribute("aria-selected", String(selected));
      button.tabIndex = selected ? 0 : -1;
      this.panelById.get(tab)!.hidden = !selected;
      if (selected) button.classList.remove("fresh");
    }
    if (focus) this.buttons.get(id)?.focus();
    for (const listener of this.listeners) listener(id);
  }

  /** Mark a tab that received new content while another one is shown. */
  mark(id: string): void {
    if (id !== this.active) this.buttons.get(id)?.classList.add("fresh");
  }
}
