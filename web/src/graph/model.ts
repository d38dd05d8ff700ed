// What to draw of a graph: groups that follow the program (a repeated block such as
// "AddBackward × 999" or "[Tanh → Add → Mul] × 100", an nn.Module call such as "0: Linear",
// and for graphs too large even then, bands of depth) and which of them are open. Pure data in,
// pure data out: the page computes it on every expand/collapse (linear in the graph's size) and
// hands the result to the layout worker. A closed group is one box; an open module or band is
// a cluster around its members; an open chain shows its first `revealed` nodes and keeps the
// rest as one box, so a 10,000-node chain opens a few hundred nodes at a time.

import { commonNames, depthBands, findRepeats, repeatLabel, type Band } from "./grouping";
import type { GraphData, GraphModule, GraphNode, GraphTensor } from "./types";

/** Graphs with more nodes than this open with every group closed. */
export const OPEN_BELOW = 60;
/** Nodes revealed per click on a chain group. */
export const REVEAL_STEP = 200;
/** At most this many boxes are drawn; past it the Graph tab shows a summary instead. */
export const MAX_ITEMS = 2500;

export interface Group {
  id: string; // "m:<module id>", "c:<first node id>" or "b:<level>:<index>"
  kind: "module" | "chain" | "band";
  label: string;
  parent: string | null; // enclosing module or band group
  nodes: string[]; // every node inside, nested groups included; a chain's in order from the root
  module?: GraphModule;
  period?: number; // a chain: nodes per repeated block (1: "AddBackward × 999")
  names?: string[]; // a chain: one block's node names
  common?: string; // a band: its most frequent node names with their counts
}

export interface ViewState {
  open: Set<string>; // open module and band groups
  revealed: Map<string, number>; // chain group -> nodes shown one by one (0: closed)
}

/** A box to draw: a graph node, a tensor, a constant stub, or a closed group. */
export interface ViewItem {
  id: string;
  kind: "function" | "accumulate" | "tensor" | "const" | "group";
  cluster: string | null; // the open module group it sits in
  node?: GraphNode;
  tensor?: GraphTensor;
  constOf?: { node: GraphNode; input_nr: number; name: string | null };
  group?: Group;
  hidden?: number; // a group: how many nodes it stands for
}

export interface ViewLink {
  id: string; // a graph edge id (the first one when several collapse into one link)
  from: string;
  to: string;
  kind: "edge" | "grad_fn" | "grad" | "null";
  inputNr: number | null;
}

export interface ViewCluster {
  id: string;
  label: string;
  parent: string | null;
}

export interface ViewGraph {
  items: ViewItem[];
  links: ViewLink[];
  clusters: ViewCluster[];
  /** Graph node id -> the item that shows it (itself, or the closed group holding it). */
  itemOf: Map<string, string>;
  /** Graph edge id -> the link that carries it (absent when both ends are in one group). */
  linkOf: Map<string, string>;
  tooMany: boolean; // more than MAX_ITEMS boxes: draw a summary instead
}

export class GraphModel {
  readonly groups = new Map<string, Group>();
  private readonly chainOf = new Map<string, string>(); // node -> chain group
  private readonly chainPos = new Map<string, number>(); // node -> its place in its chain
  private readonly moduleChain = new Map<string, string[]>(); // node -> band and module groups, outermost first
  private readonly byId: Map<string, GraphNode>;

  private constructor(readonly data: GraphData) {
    this.byId = new Map(data.nodes.map((n) => [n.id, n]));
  }

  /** The groups of `data`, with `pause` awaited between passes (each linear in the graph's
   * size), so a 10,000-node graph is grouped in several short tasks instead of one long one. */
  static async build(data: GraphData, pause: () => Promise<void> = async () => {}): Promise<GraphModel> {
    const model = new GraphModel(data);
    model.findModules();
    await pause();
    model.findChains();
    await pause();
    const { units, unitOf } = model.bandUnits();
    const links: [string, string][] = data.edges.map((e) => [unitOf.get(e.from)!, unitOf.get(e.to)!]);
    await pause();
    const bands = depthBands([...units], links);
    if (bands.length) {
      await pause();
      model.addBands(bands, unitOf);
    }
    return model;
  }

  /** The state a graph opens with: small graphs fully open, large ones with every group closed. */
  initialState(): ViewState {
    const small = this.data.nodes.length <= OPEN_BELOW;
    const open = new Set<string>();
    const revealed = new Map<string, number>();
    for (const g of this.groups.values()) {
      if (g.kind !== "chain" && small) open.add(g.id);
      if (g.kind === "chain") revealed.set(g.id, small ? g.nodes.length : 0);
    }
    return { open, revealed };
  }

  /** Every group open (chains fully revealed), if that stays under MAX_ITEMS boxes. */
  allOpen(): ViewState {
    const open = new Set<string>();
    const revealed = new Map<string, number>();
    for (const g of this.groups.values()) {
      if (g.kind !== "chain") open.add(g.id);
      else revealed.set(g.id, g.nodes.length);
    }
    return { open, revealed };
  }

  allClosed(): ViewState {
    const revealed = new Map<string, number>();
    for (const g of this.groups.values()) if (g.kind === "chain") revealed.set(g.id, 0);
    return { open: new Set(), revealed };
  }

  /** Opens a closed group (a chain by REVEAL_STEP more nodes, rounded to whole blocks) or
   * closes an open module or band. */
  toggle(state: ViewState, groupId: string): ViewState {
    const g = this.groups.get(groupId);
    const next: ViewState = { open: new Set(state.open), revealed: new Map(state.revealed) };
    if (!g) return next;
    if (g.kind !== "chain") {
      if (next.open.has(g.id)) next.open.delete(g.id);
      else next.open.add(g.id);
    } else {
      const shown = next.revealed.get(g.id) ?? 0;
      const period = g.period ?? 1;
      const step = Math.max(period, REVEAL_STEP - (REVEAL_STEP % period));
      next.revealed.set(g.id, shown >= g.nodes.length ? 0 : Math.min(g.nodes.length, shown + step));
    }
    return next;
  }

  /** Opens whatever hides `nodeId` (the trace follows the engine into a closed group). */
  reveal(state: ViewState, nodeId: string): ViewState {
    const next: ViewState = { open: new Set(state.open), revealed: new Map(state.revealed) };
    for (const m of this.moduleChain.get(nodeId) ?? []) next.open.add(m);
    const chain = this.chainOf.get(nodeId);
    if (chain) {
      const at = this.chainPos.get(nodeId)!;
      next.revealed.set(chain, Math.max(next.revealed.get(chain) ?? 0, at + 1));
    }
    return next;
  }

  /** The boxes, links and clusters to draw in `state`. */
  view(state: ViewState): ViewGraph {
    const items: ViewItem[] = [];
    const itemOf = new Map<string, string>();
    const placed = new Set<string>();
    for (const node of this.data.nodes) {
      const shownAs = this.shownAs(node.id, state);
      itemOf.set(node.id, shownAs);
      if (placed.has(shownAs)) continue;
      placed.add(shownAs);
      if (shownAs === node.id) items.push({ id: node.id, kind: node.kind, cluster: this.cluster(node.id, state), node });
      else {
        const group = this.groups.get(shownAs)!;
        const hidden = group.kind === "chain" ? group.nodes.length - (state.revealed.get(group.id) ?? 0) : group.nodes.length;
        items.push({ id: group.id, kind: "group", cluster: this.groupCluster(group, state), group, hidden });
      }
    }
    const clusters = [...state.open]
      .map((id) => this.groups.get(id))
      .filter((g): g is Group => !!g && g.kind !== "chain" && this.isVisibleCluster(g, state))
      .map((g) => ({ id: g.id, label: g.label, parent: g.parent && state.open.has(g.parent) ? g.parent : null }));
    const links: ViewLink[] = [];
    const linkOf = new Map<string, string>();
    const seen = new Map<string, string>();
    for (const e of this.data.edges) {
      const from = itemOf.get(e.from)!;
      const to = itemOf.get(e.to)!;
      if (from === to) continue;
      const key = `${from}>${to}`;
      const existing = seen.get(key);
      if (existing) {
        linkOf.set(e.id, existing);
        continue;
      }
      seen.set(key, e.id);
      linkOf.set(e.id, e.id);
      links.push({ id: e.id, from, to, kind: "edge", inputNr: e.input_nr });
    }
    this.addTensors(items, links, itemOf, state);
    this.addConstants(items, links, itemOf);
    return { items, links, clusters, itemOf, linkOf, tooMany: items.length > MAX_ITEMS };
  }

  /** How many boxes `state` would draw (cheap: no links). */
  countItems(state: ViewState): number {
    const shown = new Set<string>();
    for (const node of this.data.nodes) shown.add(this.shownAs(node.id, state));
    return shown.size;
  }

  // ---------------------------------------------------------------- grouping

  private findModules(): void {
    const modules = new Map((this.data.modules ?? []).map((m) => [m.id, m]));
    for (const m of modules.values()) {
      this.groups.set(`m:${m.id}`, {
        id: `m:${m.id}`,
        kind: "module",
        label: m.extra ? `${m.label}(${m.extra})` : m.label,
        parent: m.parent ? `m:${m.parent}` : null,
        nodes: [],
        module: m,
      });
    }
    for (const node of this.data.nodes) {
      const chain: string[] = [];
      for (let m = node.module ? modules.get(node.module) : undefined; m; m = m.parent ? modules.get(m.parent) : undefined) {
        chain.unshift(`m:${m.id}`);
        this.groups.get(`m:${m.id}`)!.nodes.push(node.id);
      }
      this.moduleChain.set(node.id, chain);
    }
  }

  private findChains(): void {
    for (const r of findRepeats(this.data.nodes, this.data.edges, this.byId)) {
      const modules = this.moduleChain.get(r.nodes[0]) ?? [];
      const group: Group = {
        id: `c:${r.nodes[0]}`,
        kind: "chain",
        label: repeatLabel(r.names),
        parent: modules.length ? modules[modules.length - 1] : null,
        nodes: r.nodes,
        period: r.period,
        names: r.names,
      };
      this.groups.set(group.id, group);
      r.nodes.forEach((id, i) => {
        this.chainOf.set(id, group.id);
        this.chainPos.set(id, i);
      });
    }
  }

  /** The boxes of the every-group-closed view (units) and the unit of each node. */
  private bandUnits(): { units: Set<string>; unitOf: Map<string, string> } {
    const closed = this.allClosed();
    const unitOf = new Map<string, string>();
    const units = new Set<string>();
    for (const node of this.data.nodes) {
      const unit = this.shownAs(node.id, closed);
      units.add(unit);
      unitOf.set(node.id, unit);
    }
    return { units, unitOf };
  }

  /** Depth bands (see ./grouping.ts) as groups around the units, outermost in each node's
   * chain of groups. */
  private addBands(bands: Band[], unitOf: Map<string, string>): void {
    const bandOf = new Map<string, string[]>(); // unit -> its bands, outermost first
    const add = (band: Band, path: string, parent: string | null, outer: string[]) => {
      const id = `b:${path}`;
      const chain = [...outer, id];
      this.groups.set(id, {
        id,
        kind: "band",
        label: band.depth[0] === band.depth[1] ? `depth ${band.depth[0]}` : `depth ${band.depth[0]}–${band.depth[1]}`,
        parent,
        nodes: [],
      });
      if (band.children.length) band.children.forEach((c, i) => add(c, `${path}.${i}`, id, chain));
      else for (const u of band.units) bandOf.set(u, chain);
    };
    bands.forEach((b, i) => add(b, String(i), null, []));
    for (const node of this.data.nodes) {
      const outer = bandOf.get(unitOf.get(node.id)!)!;
      for (const b of outer) this.groups.get(b)!.nodes.push(node.id);
      this.moduleChain.set(node.id, [...outer, ...(this.moduleChain.get(node.id) ?? [])]);
    }
    for (const g of this.groups.values()) {
      if (g.kind === "band") g.common = commonNames(g.nodes.map((id) => this.byId.get(id)!.name));
      else if (g.parent === null) {
        const outer = bandOf.get(g.id); // a top-level module or chain is a unit itself
        if (outer) g.parent = outer[outer.length - 1];
      }
    }
  }

  // ---------------------------------------------------------------- visibility

  private shownAs(nodeId: string, state: ViewState): string {
    for (const m of this.moduleChain.get(nodeId) ?? []) if (!state.open.has(m)) return m;
    const chain = this.chainOf.get(nodeId);
    if (chain && this.chainPos.get(nodeId)! >= (state.revealed.get(chain) ?? 0)) return chain;
    return nodeId;
  }

  /** The innermost open module around a node that is drawn by itself. */
  private cluster(nodeId: string, state: ViewState): string | null {
    const chain = this.moduleChain.get(nodeId) ?? [];
    return chain.length && chain.every((m) => state.open.has(m)) ? chain[chain.length - 1] : null;
  }

  /** A closed group sits in its enclosing module's cluster (every ancestor is open, or it
   * would not be drawn). */
  private groupCluster(group: Group, state: ViewState): string | null {
    return this.isVisibleCluster(group, state) ? group.parent : null;
  }

  private isVisibleCluster(group: Group, state: ViewState): boolean {
    for (let p = group.parent; p; p = this.groups.get(p)!.parent) if (!state.open.has(p)) return false;
    return true;
  }

  private addTensors(items: ViewItem[], links: ViewLink[], itemOf: Map<string, string>, state: ViewState): void {
    for (const t of this.data.tensors) {
      if (!t.node || t.role === "intermediate" || t.role === "constant") continue;
      const target = itemOf.get(t.node);
      if (!target) continue;
      // A leaf inside a closed group (a module's weight) is drawn with the group's box.
      if (t.role === "leaf" && target !== t.node) continue;
      items.push({ id: t.id, kind: "tensor", cluster: t.role === "leaf" ? this.cluster(t.node, state) : null, tensor: t });
      if (t.role === "root") links.push({ id: `g:${t.id}`, from: t.id, to: target, kind: "grad_fn", inputNr: null });
      else links.push({ id: `g:${t.id}`, from: target, to: t.id, kind: "grad", inputNr: null });
    }
  }

  private addConstants(items: ViewItem[], links: ViewLink[], itemOf: Map<string, string>): void {
    const tensors = new Map(this.data.tensors.map((t) => [t.id, t]));
    for (const node of this.data.nodes) {
      if (itemOf.get(node.id) !== node.id) continue;
      for (const input of node.inputs) {
        if (input.node !== null) continue;
        const id = `c:${node.id}:${input.input_nr}`;
        items.push({
          id,
          kind: "const",
          cluster: null,
          constOf: { node, input_nr: input.input_nr, name: constantName(node, input.shape, tensors) },
        });
        links.push({ id: `l:${id}`, from: node.id, to: id, kind: "null", inputNr: input.input_nr });
      }
    }
  }
}

/** The name of the constant a null input is, when the node saved exactly one named constant of
 * that shape (the in-place example's `w`); null when unknown or ambiguous. */
function constantName(node: GraphNode, shape: number[], tensors: Map<string, GraphTensor>): string | null {
  const names = new Set<string>();
  for (const s of node.saved) {
    const t = s.tensor ? tensors.get(s.tensor) : undefined;
    if (t && t.role === "constant" && t.name && sameShape(t.shape, shape)) names.add(t.name);
  }
  return names.size === 1 ? [...names][0] : null;
}

function sameShape(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** Counts by node name, most frequent first: the summary of a graph too large to draw. */
export function summarize(data: GraphData): { name: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const n of data.nodes) counts.set(n.name, (counts.get(n.name) ?? 0) + 1);
  return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count);
}
