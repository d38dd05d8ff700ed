// Positions, computed in ./layout.worker.ts (never on the page's thread).
// Only sizes and structure come in; only coordinates go out.

import dagre from "@dagrejs/dagre";
import { layeredLayout } from "./layered";

/** dagre lays out compound graphs (open modules) well but slowly: up to this many boxes. */
export const DAGRE_MAX = 150;

export interface Point {
  x: number;
  y: number;
}

/** What the worker gets: sizes and structure only. */
export interface LayoutRequest {
  nodes: { id: string; width: number; height: number; parent: string | null }[];
  clusters: { id: string; parent: string | null }[];
  links: { id: string; from: string; to: string }[];
}

export interface LayoutResult {
  positions: Record<string, Point>;
  boxes: Record<string, Point & { width: number; height: number }>;
  points: Record<string, Point[]>;
  width: number;
  height: number;
  ms: number;
}

/** Small graphs with open modules: dagre (clusters as compound nodes); everything else: the
 * linear-time layered layout of ./layered.ts. */
export function runLayout(req: LayoutRequest): LayoutResult {
  return req.clusters.length > 0 && req.nodes.length <= DAGRE_MAX ? dagreLayout(req) : layeredLayout(req);
}

function dagreLayout(req: LayoutRequest): LayoutResult {
  const started = performance.now();
  const compound = req.clusters.length > 0;
  const g = new dagre.graphlib.Graph({ multigraph: true, compound });
  g.setGraph({ rankdir: "TB", nodesep: 28, ranksep: 42, edgesep: 12, marginx: 16, marginy: 28 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const c of req.clusters) g.setNode(c.id, {});
  for (const c of req.clusters) if (c.parent) g.setParent(c.id, c.parent);
  for (const n of req.nodes) {
    g.setNode(n.id, { width: n.width, height: n.height });
    if (n.parent && compound) g.setParent(n.id, n.parent);
  }
  for (const l of req.links) g.setEdge(l.from, l.to, {}, l.id);
  dagre.layout(g);
  const positions: Record<string, Point> = {};
  for (const n of req.nodes) {
    const p = g.node(n.id) as Point;
    positions[n.id] = { x: p.x, y: p.y };
  }
  const boxes: LayoutResult["boxes"] = {};
  for (const c of req.clusters) {
    const b = g.node(c.id) as Point & { width: number; height: number };
    if (b && Number.isFinite(b.x)) boxes[c.id] = { x: b.x, y: b.y, width: b.width, height: b.height };
  }
  const points: Record<string, Point[]> = {};
  for (const l of req.links) {
    const e = g.edge({ v: l.from, w: l.to, name: l.id }) as { points?: Point[] } | undefined;
    points[l.id] = e?.points ?? [];
  }
  const info = g.graph() as { width?: number; height?: number };
  return { positions, boxes, points, width: info.width ?? 0, height: info.height ?? 0, ms: performance.now() - started };
}
