// Real kael.viz documents for the unit tests (./kael_docs.json, written by ./make_fixtures.py).

import type { GraphData, TraceData } from "../graph/types";
import docs from "./kael_docs.json";

export const diamond = docs.diamond as unknown as GraphData;
export const diamondTrace = docs.diamond_trace as unknown as TraceData;
export const addChain = docs.add_chain as unknown as GraphData;
export const reluLoop = docs.relu_loop as unknown as GraphData;

/** A chain graph of `n` AddBackward nodes (more than kael's fixtures hold, for the size limits). */
export function longChain(n: number): GraphData {
  const node = (i: number) => ({
    id: `n${i}`, kind: "function", name: "AddBackward", label: "AddBackward", doc: null, output: null, tensor: null,
    inputs: i + 1 < n ? [{ input_nr: 0, shape: [], dtype: "float64", node: `n${i + 1}`, edge: `e${i}` }] : [],
    saved: [], released: false, hooks: { pre: 0, post: 0, tensor: 0, retains_grad: false }, module: null,
  });
  const nodes = Array.from({ length: n }, (_, i) => node(i));
  const edges = nodes.slice(0, -1).map((_, i) => ({ id: `e${i}`, from: `n${i}`, to: `n${i + 1}`, input_nr: 0, shape: [], dtype: "float64" }));
  return { ...addChain, nodes, edges, tensors: [], roots: ["n0"] } as unknown as GraphData;
}
