// The output panels' one interface. The page keeps a list of panels and loops over it when a run
// starts (reset), when the program draws something (accept), when a run ends (choose the tab to
// show) and when the language changes (refreshText): a new panel is one file and one line in
// ./index.ts.

import type { Label } from "../ui/i18n";
import type { Display } from "../worker/protocol";

/** Where a panel is in what it shows (a trace's step), carried by share links. */
export interface PanelPlace {
  step: number;
  pass?: number;
  forward?: boolean; // the stepper's steps count the recorded forward lines first
}

export interface Panel {
  /** The tab's id (also data-tab on its button). */
  readonly id: string;
  /** The tab's label: an i18n key, or the text in every language ({ en: "Memory", zh: "内存" }). */
  readonly label: Label;
  readonly element: HTMLElement;
  /**
   * After a run, the tab shown is the one with the highest rank among the panels that drew
   * something; the console (rank 0) when none did.
   */
  readonly rank: number;
  /** Show this panel as soon as it first draws during a run (a live plot), not only at the end. */
  readonly selectEarly?: boolean;
  /** Offer what the program asked to draw; true when this panel drew something from it. */
  accept(display: Display): boolean;
  /** A new run starts: forget the last run's drawings. */
  reset(): void;
  /** The language changed: redraw text. */
  refreshText(): void;
  /** The panel's tab was selected (a drawing can refit to its now visible size). */
  shown?(): void;
  /** Where the learner is in this panel's drawing (null when there is nothing to be in). */
  place?(): PanelPlace | null;
  /** Go back to a place (from a share link); false when this run's drawing has no such place. */
  restore?(place: PanelPlace): boolean;
}
