// A long list of buttons as one Tab stop (WAI-ARIA's roving tabindex): Tab enters the list at
// its marked item (or the first), the arrow keys, Home and End move inside it, the next Tab
// leaves it. Without it the editor sat behind 11 example cards on the keyboard.

/** Make the buttons matching `selector` inside `list` one Tab stop; call again after a redraw. */
export function rovingFocus(list: HTMLElement, selector: string, current?: HTMLElement | null): void {
  const items = [...list.querySelectorAll<HTMLElement>(selector)];
  const start = current && items.includes(current) ? current : items[0];
  for (const item of items) item.tabIndex = item === start ? 0 : -1;
  if (list.dataset.roving) return; // the listeners read the items afresh each time
  list.dataset.roving = selector;
  list.addEventListener("keydown", (e) => {
    const all = [...list.querySelectorAll<HTMLElement>(selector)];
    const i = all.indexOf(document.activeElement as HTMLElement);
    if (i < 0) return;
    const next = { ArrowDown: i + 1, ArrowRight: i + 1, ArrowUp: i - 1, ArrowLeft: i - 1, Home: 0, End: all.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    move(all, all[Math.max(0, Math.min(all.length - 1, next))]);
  });
  list.addEventListener("focusin", (e) => {
    const all = [...list.querySelectorAll<HTMLElement>(selector)];
    if (all.includes(e.target as HTMLElement)) move(all, e.target as HTMLElement, false);
  });
}

function move(items: HTMLElement[], to: HTMLElement, focus = true): void {
  for (const item of items) item.tabIndex = item === to ? 0 : -1;
  if (focus) to.focus();
}
