// Lays out kael.viz graph data with dagre: backward nodes, the tensors at the ends (roots above
// their grad_fn, leaves below their AccumulateGrad) and a small box per null edge (a constant).

import dagre from "@dagrejs/dagre";
import { formatBytes } from "../ui/dom";
import type { GraphData, GraphNode, GraphTensor } from "./types";
import { formatShape } from "./types";

export type ItemKind = "function" | "accumulate" | "tensor" | "const";

export interface LayoutItem {
  id: string; // node id (n0), tensor id (t0) or "c:<node>:<input_nr>"
  kind: ItemKind;
  title: string;
  lines: string[];
  x: number; // centre
  y: number;
  width: number;
  height: number;
  node?: GraphNode;
  tensor?: GraphTensor;
  constOf?: { node: GraphNode; input_nr: number };
}

export interface LayoutLink {
  id: string; // graph edge id (e0) or a synthetic id
  from: string;
  to: string;
  kind: "edge" | "grad_fn" | "grad" | "null";
  inputNr: number | null;
  points: { x: number; y: number }[];
  label: string;
}

export interface Layout {
  items: LayoutItem[];
  links: LayoutLink[];
  width: number;
  height: number;
}

const CHAR_W = 7.4; // px per character of the 12px monospace font
const LINE_H = 16;
const PAD_X = 12;
const PAD_Y = 8;
const MAX_SAVED_LINES = 4;

function size(title: string, lines: string[]): { width: number; height: number } {
  const longest = Math.max(title.length + 2, ...lines.map((l) => l.length));
  return { width: Math.max(64, longest * CHAR_W + 2 * PAD_X), height: (1 + lines.length) * LINE_H + 2 * PAD_Y };
}

function savedLine(s: GraphNode["saved"][number]): string {
  return `${s.name} ${formatShape(s.shape)} ${formatBytes(s.bytes)}${s.stale ? " !" : ""}`;
}

function tensorTitle(t: GraphTensor): string {
  return t.name ?? (t.role === "root" ? "output" : t.role === "leaf" ? "leaf" : "tensor");
}

export function layoutGraph(data: GraphData): Layout {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "TB", nodesep: 28, ranksep: 42, edgesep: 12, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));

  const items = new Map<string, Omit<LayoutItem, "x" | "y">>();
  const add = (item: Omit<LayoutItem, "x" | "y" | "width" | "height">) => {
    const full = { ...item, ...size(item.title, item.lines) };
    items.set(item.id, full);
    g.setNode(item.id, { width: full.width, height: full.height });
  };
  const tensorsById = new Map(data.tensors.map((t) => [t.id, t]));

  for (const node of data.nodes) {
    const lines: string[] = [];
    if (node.kind === "function") {
      const saved = node.saved.slice(0, MAX_SAVED_LINES).map(savedLine);
      if (node.saved.length > MAX_SAVED_LINES) saved.push(`+${node.saved.length - MAX_SAVED_LINES} more`);
      lines.push(...saved);
      const output = node.tensor ? tensorsById.get(node.tensor) : undefined;
      if (output && output.role === "intermediate" && output.name) lines.unshift(`→ ${output.name}`);
    }
    add({ id: node.id, kind: node.kind, title: node.label, lines, node });
  }

  const links: Omit<LayoutLink, "points">[] = [];
  const link = (l: Omit<LayoutLink, "points">) => {
    links.push(l);
    g.setEdge(l.from, l.to, { width: l.label ? l.label.length * 6 : 0, height: l.label ? 12 : 0 }, l.id);
  };

  for (const t of data.tensors) {
    if (t.role === "intermediate" || !t.node) continue;
    const lines = [`${formatShape(t.shape)} ${t.dtype}`];
    add({ id: t.id, kind: "tensor", title: tensorTitle(t), lines, tensor: t });
    if (t.role === "root") link({ id: `g:${t.id}`, from: t.id, to: t.node, kind: "grad_fn", inputNr: null, label: "" });
    else link({ id: `g:${t.id}`, from: t.node, to: t.id, kind: "grad", inputNr: null, label: "" });
  }

  for (const edge of data.edges) {
    link({ id: edge.id, from: edge.from, to: edge.to, kind: "edge", inputNr: edge.input_nr, label: "" });
  }

  for (const node of data.nodes) {
    for (const input of node.inputs) {
      if (input.node !== null) continue;
      const id = `c:${node.id}:${input.input_nr}`;
      add({ id, kind: "const", title: "const", lines: [formatShape(input.shape)], constOf: { node, input_nr: input.input_nr } });
      link({ id: `l:${id}`, from: node.id, to: id, kind: "null", inputNr: input.input_nr, label: "" });
    }
  }

  dagre.layout(g);

  const placed: LayoutItem[] = [];
  for (const [id, item] of items) {
    const pos = g.node(id) as { x: number; y: number };
    placed.push({ ...item, x: pos.x, y: pos.y });
  }
  const placedLinks: LayoutLink[] = links.map((l) => {
    const edge = g.edge({ v: l.from, w: l.to, name: l.id }) as { points?: { x: number; y: number }[] };
    return { ...l, points: edge?.points ?? [] };
  });
  const info = g.graph() as { width?: number; height?: number };
  return { items: placed, links: placedLinks, width: info.width ?? 0, height: info.height ?? 0 };
}
