// The output pane: a tab per panel, and the loops over the panel list for a run's life.

import { isProgressReport, ProgressBar } from "../plot/progress";
import { Tabs } from "../ui/tabs";
import { DISPLAY_KIND, type Display } from "../worker/protocol";
import type { Panel, PanelPlace } from "./panel";

export class OutputPanels {
  readonly tabs: Tabs;
  /** The run's progress (playground.progress, kael's long operations), above whichever tab is open. */
  readonly progress = new ProgressBar();
  private drew = new Set<string>();

  constructor(private readonly panels: readonly Panel[]) {
    this.tabs = new Tabs(
      "out",
      "tabs.output",
      panels.map((p) => ({ id: p.id, label: p.label, panel: p.element })),
    );
    this.tabs.onSelect((id) => this.panel(id)?.shown?.());
    this.tabs.panels.prepend(this.progress.element);
  }

  panel(id: string): Panel | undefined {
    return this.panels.find((p) => p.id === id);
  }

  /** A run starts. */
  reset(): void {
    this.drew.clear();
    this.progress.clear();
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
    if (display.kind === DISPLAY_KIND.progress) {
      if (isProgressReport(display)) this.progress.update(display);
      return;
    }
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
    this.progress.clear(); // the run ended, stopped or failed: no bar
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
    this.progress.refreshText();
    for (const panel of this.panels) panel.refreshText();
  }
}
