// The output pane: a tab per panel, and the loops over the panel list for a run's life.

import { Tabs } from "../ui/tabs";
import type { Display } from "../worker/protocol";
import type { Panel, PanelPlace } from "./panel";

export class OutputPanels {
  readonly tabs: Tabs;
  private drew = new Set<string>();

  constructor(private readonly panels: readonly Panel[]) {
    this.tabs = new Tabs(
      "out",
      "tabs.output",
      panels.map((p) => ({ id: p.id, label: p.label, panel: p.element })),
    );
    this.tabs.onSelect((id) => this.panel(id)?.shown?.());
  }

  panel(id: string): Panel | undefined {
    return this.panels.find((p) => p.id === id);
  }

  /** A run starts. */
  reset(): void {
    this.drew.clear();
    for (const panel of this.panels) panel.reset();
  }

  /** The editor holds other code now: what the last program drew goes (its printout stays in the
   * console, with the note of what was opened), and the console is shown. */
  clearDrawings(): void {
    this.drew.clear();
    for (const panel of this.panels) if (panel.id !== "console") panel.reset();
    this.tabs.select("console");
  }

  /** Every panel is offered every display (a trace also gives the Graph tab its graph). */
  show(display: Display): void {
    for (const panel of this.panels) {
      if (!panel.accept(display)) continue;
      const first = !this.drew.has(panel.id);
      this.drew.add(panel.id);
      if (first && panel.selectEarly) this.tabs.select(panel.id);
      else this.tabs.mark(panel.id);
    }
  }

  /** A run ended: show the highest-ranked panel that drew something (the first panel if none). */
  finish(failed: boolean): void {
    let best = this.panels[0];
    if (!failed) {
      for (const panel of this.panels) if (this.drew.has(panel.id) && panel.rank > best.rank) best = panel;
    }
    this.tabs.select(best.id);
  }

  /** Show a panel (a share link's tab) and, when given, its place (a trace's step). */
  open(id: string, place: PanelPlace | null = null): void {
    const panel = this.panel(id);
    if (!panel) return;
    this.tabs.select(id);
    if (place) panel.restore?.(place);
  }

  refreshText(): void {
    for (const panel of this.panels) panel.refreshText();
  }
}
