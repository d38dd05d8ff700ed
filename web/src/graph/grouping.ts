// How a graph's nodes fall into groups beyond nn.Module calls (./model.ts owns modules and
// which groups are open). Pure functions over the graph data:
//   * repeated blocks: a run of nodes one after the other whose names repeat with a period of
//     1 to MAX_PERIOD nodes ("AddBackward × 999", or `x = (x * w + b).tanh()` in a loop as
//     "[Tanh → Add → Mul] × 100");
//   * depth bands: when a graph is still too large with every module and block closed (a wide
//     random DAG, a deep unrolled MLP), its top-level boxes are cut into bands of consecutive
//     depth, and bands into bands of bands, so that it opens as a summary of at most
//     BAND_FANOUT boxes, each of which opens one level.

import type { GraphEdge, GraphNode } from "./types";

/** A run of at least this many same-named nodes is a group. */
export const CHAIN_MIN = 4;
/** A block of 2..MAX_PERIOD nodes repeated at least this many times in a row is a group. */
export const REPEAT_MIN = 3;
export const MAX_PERIOD = 6;
/** More top-level boxes than this (every group closed): cut them into depth bands. */
export const BAND_ABOVE = 400;
/** At most this many bands at each level. */
export const BAND_FANOUT = 100;

export interface Repeat {
  nodes: string[]; // in order from the root
  period: number; // nodes per repeated block
  names: string[]; // one block's node names, in order from the root
}

/** The node each function node continues into: its one input that is a function node (inputs
 * from leaves' AccumulateGrad nodes and constants aside), when that node feeds nothing else and
 * sits in the same module. */
function spineLinks(nodes: GraphNode[], edges: GraphEdge[], byId: Map<string, GraphNode>): Map<string, string> {
  const inDegree = new Map<string, number>();
  for (const e of edges) inDegree.set(e.to, (inDegree.get(e.to) ?? 0) + 1);
  const next = new Map<string, string>();
  for (const node of nodes) {
    if (node.kind !== "function") continue;
    let spine: string | null = null;
    let single = true;
    for (const input of node.inputs) {
      if (input.node === null || byId.get(input.node)?.kind !== "function") continue;
      if (spine !== null && spine !== input.node) single = false;
      spine = input.node;
    }
    if (!single || spine === null) continue;
    const target = byId.get(spine)!;
    if (target.module === node.module && inDegree.get(spine) === 1) next.set(node.id, spine);
  }
  return next;
}

/** The longest repeated stretch starting at `i` of `names`: its period and length (0 if none). */
function repeatAt(names: string[], i: number): { period: number; cover: number } {
  let best = { period: 0, cover: 0 };
  for (let p = 1; p <= MAX_PERIOD && i + p < names.length; p++) {
    let run = p;
    while (i + run < names.length && names[i + run] === names[i + run - p]) run++;
    const repeats = Math.floor(run / p);
    if (repeats >= (p === 1 ? CHAIN_MIN : REPEAT_MIN) && repeats * p > best.cover) best = { period: p, cover: repeats * p };
  }
  return best;
}

/** Repeated blocks along the graph's paths of single-consumer function nodes. */
export function findRepeats(nodes: GraphNode[], edges: GraphEdge[], byId: Map<string, GraphNode>): Repeat[] {
  const next = spineLinks(nodes, edges, byId);
  const hasPrev = new Set(next.values());
  const out: Repeat[] = [];
  for (const node of nodes) {
    if (!next.has(node.id) || hasPrev.has(node.id)) continue;
    const path = [node.id];
    for (let id = next.get(node.id); id !== undefined; id = next.get(id)) path.push(id);
    const names = path.map((id) => byId.get(id)!.name);
    for (let i = 0; i < path.length; ) {
      const { period, cover } = repeatAt(names, i);
      if (period === 0) {
        i++;
        continue;
      }
      out.push({ nodes: path.slice(i, i + cover), period, names: names.slice(i, i + period) });
      i += cover;
    }
  }
  return out;
}

/** "AddBackward" for a one-node block, "[Tanh → Add → Mul]" for a longer one. */
export function repeatLabel(names: string[]): string {
  if (names.length === 1) return names[0];
  return `[${names.map((n) => n.replace(/Backward\d*$/, "")).join(" → ")}]`;
}

export interface Band {
  units: string[]; // the top-level boxes inside, nested bands' included
  depth: [number, number]; // first and last depth
  children: Band[]; // empty for a band of boxes
}

/** Depth of each unit: the longest path to it from a unit nothing points to (Kahn's order), so
 * every link goes to a deeper unit and bands of consecutive depth link only downwards. Units on
 * a cycle between closed groups (rare: two modules feeding each other) come last. `links` go
 * from consumer to input. */
function unitDepths(units: string[], links: [string, string][]): Map<string, number> {
  const down = new Map<string, string[]>();
  const fedBy = new Map<string, number>();
  for (const [from, to] of links) {
    if (from === to) continue;
    const list = down.get(from);
    if (list) list.push(to);
    else down.set(from, [to]);
    fedBy.set(to, (fedBy.get(to) ?? 0) + 1);
  }
  const depth = new Map<string, number>();
  const queue = units.filter((u) => !fedBy.has(u));
  for (const u of queue) depth.set(u, 0);
  let deepest = 0;
  for (let i = 0; i < queue.length; i++) {
    const u = queue[i];
    const d = depth.get(u)!;
    deepest = Math.max(deepest, d);
    for (const v of down.get(u) ?? []) {
      depth.set(v, Math.max(depth.get(v) ?? 0, d + 1));
      const left = fedBy.get(v)! - 1;
      fedBy.set(v, left);
      if (left === 0) queue.push(v);
    }
  }
  for (const u of units) if (fedBy.get(u)) depth.set(u, deepest + 1); // on a cycle: last
  return depth;
}

/** Bands of consecutive depth over `units` (in their order) when there are more than
 * BAND_ABOVE, as a balanced tree with at most BAND_FANOUT children per level; [] otherwise. */
export function depthBands(units: string[], links: [string, string][]): Band[] {
  if (units.length <= BAND_ABOVE) return [];
  const depth = unitDepths(units, links);
  const order = units.map((u, i) => ({ u, i, d: depth.get(u)! })).sort((a, b) => a.d - b.d || a.i - b.i);
  const levels = Math.max(2, Math.ceil(Math.log(units.length) / Math.log(BAND_FANOUT)));
  const fanout = Math.ceil(Math.pow(units.length, 1 / levels));
  let bands: Band[] = [];
  for (let i = 0; i < order.length; i += fanout) {
    const part = order.slice(i, i + fanout);
    bands.push({ units: part.map((p) => p.u), depth: [part[0].d, part[part.length - 1].d], children: [] });
  }
  while (bands.length > BAND_FANOUT) {
    const up: Band[] = [];
    for (let i = 0; i < bands.length; i += fanout) {
      const part = bands.slice(i, i + fanout);
      up.push({ units: part.flatMap((b) => b.units), depth: [part[0].depth[0], part[part.length - 1].depth[1]], children: part });
    }
    bands = up;
  }
  return bands;
}

/** The two most frequent names among `names`, as "MulBackward × 400, AddBackward × 300". */
export function commonNames(names: Iterable<string>, top = 2): string {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([n, c]) => `${n} × ${c}`)
    .join(", ");
}
