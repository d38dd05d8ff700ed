// A draggable, keyboard-operable divider (WAI-ARIA window splitter): it sets a CSS length
// variable on a container (the sidebar's width), remembered between visits.

import { h } from "./dom";

export interface SplitterOptions {
  container: HTMLElement; // the element whose CSS variable is set
  variable: string; // e.g. "--side-width"
  edge: () => number; // the x of the resized pane's left edge, in client pixels
  min: number; // pixels
  max: () => number; // pixels
  storageKey: string;
}

const STEP = 24;

export function splitter(options: SplitterOptions): HTMLElement {
  const handle = h("div", {
    class: "splitter",
    role: "separator",
    tabindex: "0",
    "aria-orientation": "vertical",
    "aria-valuemin": String(options.min),
  });
  let width: number | null = null;
  const apply = (next: number | null) => {
    if (next === null) {
      options.container.style.removeProperty(options.variable);
      return;
    }
    const max = options.max(); // 0 before the first layout: no upper clamp then
    width = Math.round(Math.max(options.min, max > options.min ? Math.min(next, max) : next));
    options.container.style.setProperty(options.variable, `${width}px`);
    handle.setAttribute("aria-valuenow", String(width));
    if (max > options.min) handle.setAttribute("aria-valuemax", String(Math.round(max)));
    try {
      localStorage.setItem(options.storageKey, String(width));
    } catch {
      // not kept: fine
    }
  };
  const current = () => width ?? handle.parentElement!.getBoundingClientRect().width;
  handle.addEventListener("pointerdown", (down) => {
    down.preventDefault();
    handle.setPointerCapture(down.pointerId);
    const move = (e: PointerEvent) => apply(e.clientX - options.edge());
    const up = () => {
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", up);
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", up);
  });
  handle.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") apply(current() - STEP);
    else if (e.key === "ArrowRight") apply(current() + STEP);
    else if (e.key === "Home") apply(options.min);
    else if (e.key === "End") apply(options.max());
    else return;
    e.preventDefault();
  });
  // aria-valuenow is required on a focusable separator: the pane's width as laid out.
  handle.setAttribute("aria-valuenow", String(options.min));
  new ResizeObserver(() => {
    const pane = handle.parentElement;
    if (pane) handle.setAttribute("aria-valuenow", String(Math.round(pane.getBoundingClientRect().width)));
  }).observe(options.container);
  const saved = Number(localStorage.getItem(options.storageKey));
  if (saved > 0) queueMicrotask(() => apply(saved));
  return handle;
}
