// A layered (Sugiyama-style) layout in linear time per pass, for views too large for dagre:
// dagre 3.1.3 took 71 s for a 1,000-node chain in Node on this machine, and overflowed the stack
// at 2,500; elkjs 0.12.1 took 21 s. Autograd views are DAGs drawn root at the top, mostly
// trees and chains, which this handles in milliseconds:
//   1. ranks: longest path from the sources (Kahn's order), so a node sits one rank below the
//      lowest of its consumers;
//   2. order in each rank: depth-first discovery from the sources (inputs in order), then
//      barycentre sweeps down and up;
//   3. x: rank by rank from the top, each box under the mean of its consumers, then the rank
//      re-packed in order (left-to-right, then right-to-left); y: ranks stacked by their
//      tallest box.
// Edges are straight segments from the bottom of one box to the top of the other.

import type { LayoutRequest, LayoutResult, Point } from "./positions";

const NODE_SEP = 28;
const RANK_SEP = 42;
const MARGIN = 28;
const SWEEPS = 4;

interface Box {
  id: string;
  width: number;
  height: number;
  rank: number;
  order: number;
  x: number;
  y: number;
}

export function layeredLayout(req: LayoutRequest): LayoutResult {
  const started = performance.now();
  const boxes = new Map<string, Box>(req.nodes.map((n) => [n.id, { ...n, rank: 0, order: 0, x: 0, y: 0 }]));
  const down = new Map<string, string[]>(); // from -> to (consumer -> input)
  const up = new Map<string, string[]>();
  for (const l of req.links) {
    if (!boxes.has(l.from) || !boxes.has(l.to) || l.from === l.to) continue;
    push(down, l.from, l.to);
    push(up, l.to, l.from);
  }
  assignRanks(boxes, down, up);
  const ranks = orderRanks(boxes, down, up);
  placeX(ranks, up, boxes);
  const height = placeY(ranks);
  let minX = Infinity;
  let maxX = -Infinity;
  for (const b of boxes.values()) {
    minX = Math.min(minX, b.x - b.width / 2);
    maxX = Math.max(maxX, b.x + b.width / 2);
  }
  const shift = MARGIN - (Number.isFinite(minX) ? minX : 0);
  const positions: Record<string, Point> = {};
  for (const b of boxes.values()) positions[b.id] = { x: b.x + shift, y: b.y };
  const points: Record<string, Point[]> = {};
  for (const l of req.links) {
    const a = boxes.get(l.from);
    const b = boxes.get(l.to);
    if (!a || !b) continue;
    const start = { x: a.x + shift, y: a.y + a.height / 2 };
    const end = { x: b.x + shift, y: b.y - b.height / 2 };
    points[l.id] = [start, { x: (start.x + end.x) / 2, y: (start.y + end.y) / 2 }, end];
  }
  const boxesOut = clusterBoxes(req, positions, boxes);
  return {
    positions,
    boxes: boxesOut,
    points,
    width: (Number.isFinite(maxX) ? maxX - minX : 0) + 2 * MARGIN,
    height,
    ms: performance.now() - started,
  };
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function assignRanks(boxes: Map<string, Box>, down: Map<string, string[]>, up: Map<string, string[]>): void {
  const waiting = new Map<string, number>();
  for (const id of boxes.keys()) waiting.set(id, up.get(id)?.length ?? 0);
  const queue = [...boxes.keys()].filter((id) => waiting.get(id) === 0);
  for (let i = 0; i < queue.length; i++) {
    const box = boxes.get(queue[i])!;
    for (const next of down.get(box.id) ?? []) {
      const target = boxes.get(next)!;
      target.rank = Math.max(target.rank, box.rank + 1);
      const left = waiting.get(next)! - 1;
      waiting.set(next, left);
      if (left === 0) queue.push(next);
    }
  }
}

function orderRanks(boxes: Map<string, Box>, down: Map<string, string[]>, up: Map<string, string[]>): Box[][] {
  // Depth-first discovery from the sources, inputs in order (an explicit stack: chains are long).
  const seen = new Set<string>();
  const discovered: Box[] = [];
  const sources = [...boxes.values()].filter((b) => !(up.get(b.id)?.length));
  for (const source of sources) {
    const stack = [source.id];
    while (stack.length) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      discovered.push(boxes.get(id)!);
      const next = down.get(id) ?? [];
      for (let i = next.length - 1; i >= 0; i--) if (!seen.has(next[i])) stack.push(next[i]);
    }
  }
  for (const b of boxes.values()) if (!seen.has(b.id)) discovered.push(b);
  const ranks: Box[][] = [];
  for (const b of discovered) (ranks[b.rank] ??= []).push(b);
  for (let r = 0; r < ranks.length; r++) ranks[r] ??= [];
  const renumber = (rank: Box[]) => rank.forEach((b, i) => (b.order = i));
  ranks.forEach(renumber);
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const goingDown = sweep % 2 === 0;
    const order = goingDown ? ranks.map((_, i) => i) : ranks.map((_, i) => ranks.length - 1 - i);
    for (const r of order) {
      const neighbours = goingDown ? up : down;
      const score = new Map<Box, number>();
      for (const b of ranks[r]) {
        const ns = neighbours.get(b.id) ?? [];
        score.set(b, ns.length ? ns.reduce((s, id) => s + boxes.get(id)!.order, 0) / ns.length : b.order);
      }
      ranks[r].sort((a, b) => score.get(a)! - score.get(b)! || a.order - b.order);
      renumber(ranks[r]);
    }
  }
  return ranks;
}

function pack(rank: Box[]): void {
  // Keep the order and the spacing: push right where boxes overlap, then pull back left.
  for (let i = 1; i < rank.length; i++) {
    const min = rank[i - 1].x + (rank[i - 1].width + rank[i].width) / 2 + NODE_SEP;
    if (rank[i].x < min) rank[i].x = min;
  }
  for (let i = rank.length - 2; i >= 0; i--) {
    const max = rank[i + 1].x - (rank[i + 1].width + rank[i].width) / 2 - NODE_SEP;
    if (rank[i].x > max) rank[i].x = max;
  }
}

function placeX(ranks: Box[][], up: Map<string, string[]>, boxes: Map<string, Box>): void {
  for (const rank of ranks) {
    let x = 0;
    for (const b of rank) {
      b.x = x + b.width / 2;
      x += b.width + NODE_SEP;
    }
  }
  // Top down only: each box under the mean of its consumers. (Pulling consumers over the mean
  // of their inputs too made a chain drift sideways by half a box per rank.)
  for (let r = 1; r < ranks.length; r++) {
    for (const b of ranks[r]) {
      const ns = up.get(b.id) ?? [];
      if (ns.length) b.x = ns.reduce((s, id) => s + boxes.get(id)!.x, 0) / ns.length;
    }
    pack(ranks[r]);
  }
}

function placeY(ranks: Box[][]): number {
  let y = MARGIN;
  for (const rank of ranks) {
    const tallest = Math.max(0, ...rank.map((b) => b.height));
    for (const b of rank) b.y = y + tallest / 2;
    y += tallest + RANK_SEP;
  }
  return y - RANK_SEP + MARGIN;
}

/** Open modules drawn as the bounding box of their members (and of nested modules). */
function clusterBoxes(req: LayoutRequest, positions: Record<string, Point>, boxes: Map<string, Box>): LayoutResult["boxes"] {
  const out: LayoutResult["boxes"] = {};
  const bounds = new Map<string, { x0: number; y0: number; x1: number; y1: number }>();
  const parentOf = new Map(req.clusters.map((c) => [c.id, c.parent]));
  const grow = (cluster: string | null, x0: number, y0: number, x1: number, y1: number) => {
    let depth = 0; // an enclosing module's box sits a little outside its children's
    for (let c = cluster; c; c = parentOf.get(c) ?? null, depth += 8) {
      [x0, y0, x1, y1] = [x0 - depth, y0 - depth, x1 + depth, y1 + depth];
      const b = bounds.get(c);
      if (!b) bounds.set(c, { x0, y0, x1, y1 });
      else bounds.set(c, { x0: Math.min(b.x0, x0), y0: Math.min(b.y0, y0), x1: Math.max(b.x1, x1), y1: Math.max(b.y1, y1) });
    }
  };
  const pad = 10;
  for (const n of req.nodes) {
    if (!n.parent) continue;
    const p = positions[n.id];
    const b = boxes.get(n.id)!;
    grow(n.parent, p.x - b.width / 2 - pad, p.y - b.height / 2 - pad, p.x + b.width / 2 + pad, p.y + b.height / 2 + pad);
  }
  for (const [id, b] of bounds) out[id] = { x: (b.x0 + b.x1) / 2, y: (b.y0 + b.y1) / 2, width: b.x1 - b.x0, height: b.y1 - b.y0 };
  return out;
}
