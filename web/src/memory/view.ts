// The Memory tab: kael.viz.memory() logs, side by side on one scale. Each log is a step plot of
// the bytes held by saved tensors, event by event (the forward saving them, the backward freeing
// them; a checkpoint's recomputation saves again inside the backward), with its totals (the
// notebook's "saved 5 tensors, 2686976 bytes") and the list of saves, each with the node that
// saved it and when it was freed.

import "../graph/graph.css";
import "./memory.css";
import { formatCount, gt } from "../graph/strings";
import { formatShape, type MemoryData, type MemoryEvent } from "../graph/types";
import { clear, formatBytes, h, s, withInlineCode } from "../ui/dom";
import { bind } from "../ui/i18n";

const W = 420;
const H = 180;
const PAD = { left: 64, right: 10, top: 10, bottom: 24 };
const MAX_LISTED = 40;

export class MemoryView {
  readonly element: HTMLElement;
  private readonly placeholder: HTMLElement;
  private readonly cards: HTMLElement;
  private logs: MemoryData[] = [];

  constructor() {
    this.placeholder = h("p", { class: "placeholder" });
    this.cards = h("div", { class: "memory-cards" });
    // It scrolls (14 cards for the activation-memory example): a Tab stop, so keys can scroll it.
    this.element = h("div", { class: "memory-view", tabindex: "0", role: "region" }, this.placeholder, this.cards);
    bind(this.element, "tab.memory", "aria-label");
    this.refreshText();
  }

  add(log: MemoryData): void {
    this.logs.push(log);
    this.element.classList.add("has-memory");
    this.render();
  }

  reset(): void {
    this.logs = [];
    this.element.classList.remove("has-memory");
    clear(this.cards);
  }

  refreshText(): void {
    this.placeholder.replaceChildren(...withInlineCode(gt("memory.empty")));
    this.render();
  }

  private render(): void {
    clear(this.cards);
    const top = Math.max(1, ...this.logs.map((l) => l.totals.peak_bytes));
    for (const log of this.logs) this.cards.append(card(log, top));
  }
}

function card(log: MemoryData, top: number): HTMLElement {
  const t = log.totals;
  return h(
    "section",
    { class: "memory-card", "data-testid": "memory-card", "data-label": log.label ?? "" },
    h("h3", {}, log.label ?? "memory"),
    h(
      "p",
      { class: "memory-forward", "data-testid": "memory-forward" },
      gt("memory.forward", { tensors: t.forward_tensors, bytes: formatCount(t.forward_bytes) }),
    ),
    backwardLine(log.events),
    h("p", { class: "muted", "data-testid": "memory-peak" }, gt("memory.peak", { bytes: `${formatBytes(t.peak_bytes)} (${formatCount(t.peak_bytes)} B)` })),
    chart(log.events, top),
    h("h4", {}, gt("memory.saves")),
    savesList(log.events),
    t.dropped_events ? h("p", { class: "muted" }, gt("memory.dropped", { n: t.dropped_events })) : "",
  );
}

/**
 * What the backward did: the tensors it freed and, under checkpoint, those it saved again (and
 * how many of those were still held from the forward: the same memory, not new memory).
 */
function backwardLine(events: MemoryEvent[]): HTMLElement | string {
  const sum = (kind: "save" | "free") => {
    const list = events.filter((e) => e.phase === "backward" && e.kind === kind);
    return { tensors: list.length, bytes: formatCount(list.reduce((a, e) => a + e.bytes, 0)) };
  };
  const freed = sum("free");
  if (freed.tensors === 0) return "";
  const saved = sum("save");
  const shared = savedAgainWhileHeld(events);
  const parts = saved.tensors ? [gt("memory.backward.saved", saved)] : [];
  if (shared) parts.push(gt("memory.backward.shared", { n: shared }));
  parts.push(gt("memory.backward.freed", freed));
  return h("p", { class: "memory-backward", "data-testid": "memory-backward" }, parts.join("; "));
}

/** Backward saves of a storage that a save made earlier still held at that moment. */
function savedAgainWhileHeld(events: MemoryEvent[]): number {
  const live = new Map<string, number>();
  let shared = 0;
  for (const e of events) {
    const n = live.get(e.storage) ?? 0;
    if (e.kind === "save" && e.phase === "backward" && n > 0) shared += 1;
    if (e.kind === "save") live.set(e.storage, n + 1);
    else if (n <= 1) live.delete(e.storage);
    else live.set(e.storage, n - 1);
  }
  return shared;
}

function chart(events: MemoryEvent[], top: number): SVGSVGElement {
  const n = Math.max(1, events.length);
  const x = (i: number) => PAD.left + (i / n) * (W - PAD.left - PAD.right);
  const y = (b: number) => H - PAD.bottom - (b / top) * (H - PAD.top - PAD.bottom);
  let d = `M ${x(0)} ${y(0)}`;
  events.forEach((e, i) => {
    d += ` H ${x(i)} V ${y(e.held_bytes)}`;
  });
  d += ` H ${x(n)}`;
  const firstBackward = events.findIndex((e) => e.phase === "backward");
  const shade =
    firstBackward >= 0
      ? s("rect", { x: x(firstBackward), y: PAD.top, width: x(n) - x(firstBackward), height: H - PAD.top - PAD.bottom, class: "phase-backward" })
      : null;
  const marks = events.map((e, i) =>
    s("circle", { cx: x(i), cy: y(e.held_bytes), r: 2.5, class: `mark ${e.kind}` }, s("title", {}, eventText(e))),
  );
  return s(
    "svg",
    { class: "memory-chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": gt("memory.axis") },
    shade,
    s("line", { x1: PAD.left, y1: y(0), x2: W - PAD.right, y2: y(0), class: "axis" }),
    s("line", { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: y(0), class: "axis" }),
    s("text", { x: PAD.left - 4, y: y(top) + 4, class: "tick", "text-anchor": "end" }, formatBytes(top)),
    s("text", { x: PAD.left - 4, y: y(0), class: "tick", "text-anchor": "end" }, "0"),
    s("text", { x: PAD.left + 4, y: H - 6, class: "tick" }, gt("memory.phase.forward")),
    firstBackward >= 0 ? s("text", { x: x(firstBackward) + 4, y: H - 6, class: "tick" }, gt("memory.phase.backward")) : null,
    s("path", { d, class: "held" }),
    ...marks,
  );
}

function eventText(e: MemoryEvent): string {
  const what = e.kind === "save" ? `${e.node}.${e.name} ${formatShape(e.shape ?? [])}` : `${e.id} ${gt("memory.freed")}`;
  return `${what}: ${e.kind === "save" ? "+" : "−"}${formatBytes(e.bytes)} → ${formatBytes(e.held_bytes)}`;
}

function savesList(events: MemoryEvent[]): HTMLElement {
  const freedAt = new Map<string, number>();
  events.forEach((e, i) => e.kind === "free" && freedAt.set(e.id, i));
  const saves = events.map((e, i) => [e, i] as const).filter(([e]) => e.kind === "save");
  return h(
    "ol",
    { class: "memory-saves" },
    saves.slice(0, MAX_LISTED).map(([e, i]) =>
      h(
        "li",
        { class: e.phase },
        h("code", {}, `${e.node ?? "?"}.${e.name ?? "?"}`),
        ` ${formatShape(e.shape ?? [])} ${e.dtype} · ${formatCount(e.bytes)} B · ${gt(`memory.phase.${e.phase}`)} #${i}`,
        freedAt.has(e.id) ? ` → ${gt("memory.freed")} #${freedAt.get(e.id)}` : "",
      ),
    ),
  );
}
