// The stepper's buttons: the Trace tab's full toolbar draws them, and the Graph tab's small bar
// drives the same stepper (stepperLink.go) from its own copy of them.

import { h, s } from "../ui/dom";
import { bind } from "../ui/i18n";
import type { StepperFrame } from "./link";
import { stepperLink } from "./link";

// Stepper icons as SVG paths (no icon font, so they draw the same everywhere).
const ICONS = {
  first: "M3 3h2v10H3z M13 3v10L6 8z",
  prev: "M12 3v10L5 8z",
  next: "M4 3v10l7-5z",
  last: "M11 3h2v10h-2z M3 3v10l7-5z",
  play: "M4 3v10l9-5z",
  pause: "M4 3h3v10H4z M9 3h3v10H9z",
};

export function svgIcon(name: keyof typeof ICONS): SVGSVGElement {
  return s("svg", { viewBox: "0 0 16 16", width: "14", height: "14", "aria-hidden": "true", class: "svg-icon" }, s("path", { d: ICONS[name] }));
}

export function iconButton(key: string, icon: keyof typeof ICONS, action: () => void): HTMLButtonElement {
  const b = h("button", { type: "button", class: "icon", onclick: action }, svgIcon(icon));
  bind(b, key as never, "aria-label");
  b.title = b.getAttribute("aria-label") ?? "";
  return b;
}

/** The step keys: → and j forward, ← and k back, Home, End (not inside a canvas or a field). */
export function stepKeys(element: HTMLElement, index: () => number, total: () => number, go: (i: number) => void): void {
  element.addEventListener("keydown", (e) => {
    if ((e.target as HTMLElement).closest("select, input, textarea, .graph-canvas")) return;
    if (e.key === "ArrowRight" || e.key === "j") go(index() + 1);
    else if (e.key === "ArrowLeft" || e.key === "k") go(index() - 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(total() - 1);
    else return;
    e.preventDefault();
  });
}

/** A following tab's bar (Graph, Memory): first, previous, the step, next, last; it drives the
 * Trace tab's stepper. `name` prefixes its test ids (`graph-step-position`). */
export class FollowBar {
  readonly element: HTMLElement;
  private readonly position: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly buttons: HTMLButtonElement[];
  private frame: StepperFrame | null = null;

  constructor(name: string) {
    const at = () => this.frame?.index ?? 0;
    this.buttons = [
      iconButton("trace.first", "first", () => stepperLink.go(0)),
      iconButton("trace.prev", "prev", () => stepperLink.go(at() - 1)),
      iconButton("trace.next", "next", () => stepperLink.go(at() + 1)),
      iconButton("trace.last", "last", () => stepperLink.go((this.frame?.total ?? 1) - 1)),
    ];
    this.position = h("span", { class: "trace-position", "aria-live": "polite", "data-testid": `${name}-step-position` });
    this.notice = h("p", { class: "fwd-notice", role: "note", "data-testid": `${name}-step-notice`, hidden: true });
    const bar = h("div", { class: "stepper follow-bar", role: "toolbar", "aria-label": "stepper" }, this.buttons[0], this.buttons[1], this.position, this.buttons[2], this.buttons[3]);
    this.element = h("div", { class: "follow-wrap", hidden: true }, bar, this.notice);
    stepKeys(this.element, at, () => this.frame?.total ?? 0, (i) => stepperLink.go(i));
  }

  update(frame: StepperFrame | null): void {
    this.frame = frame;
    this.element.hidden = !frame;
    if (!frame) return;
    this.position.textContent = frame.text;
    this.position.dataset.step = String(frame.index);
    this.position.dataset.phase = frame.phase;
    this.buttons[0].disabled = this.buttons[1].disabled = frame.index <= 0;
    this.buttons[2].disabled = this.buttons[3].disabled = frame.index >= frame.total - 1;
    this.notice.textContent = frame.notice ?? "";
    this.notice.hidden = !frame.notice;
  }
}
