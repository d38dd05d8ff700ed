// Box text and sizes on the page, positions in a worker. `describeItems` turns the view's items
// into titles and lines (values and gradients included) and sizes them; ./positions.ts places
// them in ./layout.worker.ts (open modules as compound clusters); `placeLayout` joins both into
// what the canvas draws.

import { formatBytes } from "../ui/dom";
import type { Group, ViewGraph, ViewItem, ViewLink } from "./model";
import type { LayoutRequest, LayoutResult, Point } from "./positions";
import { formatCount, gt } from "./strings";
import type { GraphData, GraphNode, GraphTensor, SavedTensor, TensorValues } from "./types";
import { formatShape, formatValues } from "./types";

const CHAR_W = 7.4; // px per character of the 12px monospace font
const LINE_H = 16;
const PAD_X = 12;
const PAD_Y = 8;
const MAX_SAVED_LINES = 4;
const MAX_LINE = 44; // characters; longer value lines end with "…"

export interface LayoutItem extends ViewItem {
  title: string;
  lines: string[];
  x: number; // centre
  y: number;
  width: number;
  height: number;
}

export interface LayoutLink extends ViewLink {
  points: Point[];
}

export interface LayoutCluster {
  id: string;
  label: string;
  x: number; // centre
  y: number;
  width: number;
  height: number;
}

export interface Layout {
  items: LayoutItem[];
  links: LayoutLink[];
  clusters: LayoutCluster[];
  width: number;
  height: number;
}

// ---------------------------------------------------------------- text

function clip(text: string): string {
  return text.length > MAX_LINE ? `${text.slice(0, MAX_LINE - 1)}…` : text;
}

function savedLine(s: SavedTensor): string {
  const base = `${s.name} ${formatShape(s.shape)} ${formatBytes(s.bytes)}`;
  return s.stale ? `${base} ${gt("stale.short", { now: s.current_version, then: s.version })}` : base;
}

function tensorTitle(t: GraphTensor): string {
  return t.name ?? gt(`role.${t.role}`);
}

/** A box's gradient line: "grad [5, 5]", or "grad None" (a trace step before it arrives). The
 * canvas finds it by this prefix to rewrite it as a trace steps. */
export function gradLine(grad: TensorValues | null): string {
  return clip(`${GRAD_PREFIX}${grad ? formatValues(grad, 6) : "None"}`);
}
export const GRAD_PREFIX = "grad ";

function tensorLines(t: GraphTensor): string[] {
  const lines = [`${formatShape(t.shape)} ${t.dtype}`, clip(`= ${formatValues(t.value, 6)}`)];
  if (t.grad) lines.push(gradLine(t.grad));
  return lines;
}

function nodeLines(node: GraphNode, tensors: Map<string, GraphTensor>): string[] {
  const lines: string[] = [];
  if (node.kind !== "function") return lines;
  const output = node.tensor ? tensors.get(node.tensor) : undefined;
  const named = output && output.role === "intermediate" && output.name ? `${output.name} ` : "";
  if (node.output || named) lines.push(`→ ${named}${node.output ? formatShape(node.output.shape) : ""}`.trimEnd());
  if (named && output?.grad) lines.push(gradLine(output.grad));
  lines.push(...node.saved.slice(0, MAX_SAVED_LINES).map(savedLine));
  if (node.saved.length > MAX_SAVED_LINES) lines.push(gt("saved.more", { n: node.saved.length - MAX_SAVED_LINES }));
  return lines;
}

function itemText(item: ViewItem, tensors: Map<string, GraphTensor>): { title: string; lines: string[] } {
  if (item.node) return { title: item.node.label, lines: nodeLines(item.node, tensors) };
  if (item.tensor) return { title: tensorTitle(item.tensor), lines: tensorLines(item.tensor) };
  if (item.constOf) {
    const input = item.constOf.node.inputs[item.constOf.input_nr];
    // One way everywhere: "constant", then its name when the program gave it one.
    const shape = formatShape(input.shape);
    return { title: gt("role.constant"), lines: [item.constOf.name ? `${item.constOf.name} ${shape}` : shape] };
  }
  return groupText(item.group!, item.hidden ?? 0);
}

function groupText(group: Group, hidden: number): { title: string; lines: string[] } {
  const n = formatCount(hidden);
  if (group.kind === "band") return { title: clip(`▸ ${group.label}`), lines: [gt("group.band", { n }), clip(group.common ?? "")] };
  if (group.kind === "module") return { title: clip(`▸ ${group.label}`), lines: [gt("group.module", { n })] };
  const period = group.period ?? 1;
  const blocks = Math.floor(hidden / period);
  return { title: clip(`▸ ${group.label} × ${blocks}`), lines: [gt(period === 1 ? "group.chain" : "group.repeat", { n })] };
}

function size(title: string, lines: string[]): { width: number; height: number } {
  const longest = Math.max(title.length + 2, ...lines.map((l) => l.length));
  return { width: Math.max(64, longest * CHAR_W + 2 * PAD_X), height: (1 + lines.length) * LINE_H + 2 * PAD_Y };
}

/** Titles, lines and sizes of the view's boxes. */
export function describeItems(view: ViewGraph, data: GraphData): Omit<LayoutItem, "x" | "y">[] {
  const tensors = new Map(data.tensors.map((t) => [t.id, t]));
  return view.items.map((item) => {
    const text = itemText(item, tensors);
    return { ...item, ...text, ...size(text.title, text.lines) };
  });
}

export function layoutRequest(view: ViewGraph, items: Omit<LayoutItem, "x" | "y">[]): LayoutRequest {
  return {
    nodes: items.map((i) => ({ id: i.id, width: i.width, height: i.height, parent: i.cluster })),
    clusters: view.clusters.map((c) => ({ id: c.id, parent: c.parent })),
    links: view.links.map((l) => ({ id: l.id, from: l.from, to: l.to })),
  };
}

export function placeLayout(view: ViewGraph, items: Omit<LayoutItem, "x" | "y">[], result: LayoutResult): Layout {
  return {
    items: items.map((i) => ({ ...i, ...(result.positions[i.id] ?? { x: 0, y: 0 }) })),
    links: view.links.map((l) => ({ ...l, points: result.points[l.id] ?? [] })),
    clusters: view.clusters
      .filter((c) => result.boxes[c.id])
      .map((c) => ({ id: c.id, label: c.label, ...result.boxes[c.id] })),
    width: result.width,
    height: result.height,
  };
}
