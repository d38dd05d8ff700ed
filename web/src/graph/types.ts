// The shapes of kael.viz data (kael/viz/SCHEMA.md, schema version 1), as the views read them.

import type { SourceMark } from "../worker/protocol";

export interface TensorValues {
  shape: number[];
  dtype: string;
  numel: number;
  values: (number | boolean | string)[];
  truncated: boolean;
}

export interface GraphInput {
  input_nr: number;
  shape: number[];
  dtype: string;
  node: string | null; // null: a null edge (a constant)
  edge: string | null;
}

export interface SavedTensor {
  name: string;
  shape: number[];
  dtype: string;
  bytes: number;
  version: number;
  current_version: number;
  stale: boolean;
  stale_message: string | null;
  tensor: string | null;
  value: TensorValues | null;
}

export interface GraphModule {
  id: string;
  parent: string | null;
  name: string;
  path: string;
  type: string;
  extra: string;
  label: string;
}

export interface GraphNode {
  id: string;
  kind: "function" | "accumulate";
  name: string;
  label: string;
  doc: string | null;
  output: { shape: number[]; dtype: string } | null; // what the node's forward produced
  recorded?: { order: number; step: number; line: number } | null; // where kael.viz.forward saw it made
  tensor: string | null;
  inputs: GraphInput[];
  saved: SavedTensor[];
  released: boolean;
  hooks: { pre: number; post: number; tensor: number; retains_grad: boolean };
  module: string | null;
}

export interface GraphEdge {
  id: string;
  from: string;
  to: string;
  input_nr: number;
  shape: number[];
  dtype: string;
}

export interface GraphTensor {
  id: string;
  role: "root" | "leaf" | "intermediate" | "constant";
  name: string | null;
  shape: number[];
  dtype: string;
  requires_grad: boolean;
  is_leaf: boolean;
  retains_grad: boolean;
  node: string | null;
  version: number;
  value: TensorValues;
  grad: TensorValues | null;
}

export interface GraphData {
  version: number;
  kind: "graph";
  roots: (string | null)[];
  nodes: GraphNode[];
  edges: GraphEdge[];
  tensors: GraphTensor[];
  modules: GraphModule[];
  totals: {
    nodes: number;
    function_nodes: number;
    accumulate_nodes: number;
    edges: number;
    null_inputs: number;
    tensors: number;
    saved_tensors: number;
    saved_bytes: number;
  };
}

export interface TraceSend {
  input_nr: number;
  to: string;
  grad: TensorValues | null;
  added: boolean;
  buffer: TensorValues | null;
  count_before: number;
  count_after: number;
  ready: boolean;
}

export interface TraceStart {
  kind: "start";
  pass: number;
  seeds: { node: string; grad: TensorValues | null }[];
  counts: Record<string, number>;
  ready: string[];
}

export interface TraceStep {
  kind: "step" | "skip";
  pass: number;
  step: number;
  node: string;
  grad: TensorValues | null;
  reason: string | null;
  hooks: { kind: string; count: number; grads: (TensorValues | null)[] }[];
  captured: { inputs: number[]; grad: TensorValues | null } | null;
  accumulated: TensorValues | null;
  sends: TraceSend[];
  ready: string[];
  released: boolean;
  released_saved: string[];
}

export interface TraceError {
  kind: "error";
  pass: number;
  step: number;
  node: string | null;
  grad: TensorValues | null;
  type: string;
  message: string;
  source?: { filename: string; line: number } | null; // the program's line that ran backward
  marks?: SourceMark[]; // the page's worker adds the in-place error's lines
}

export type TraceEvent = TraceStart | TraceStep | TraceError;

export interface TracePass {
  index: number;
  graph: GraphData; // as the pass found it: its tensors' grads before the pass
  completed: boolean;
  error: unknown;
  grads: Record<string, TensorValues | null> | null; // every listed tensor's grad when it ended
}

export interface TraceData {
  version: number;
  kind: "trace";
  passes: TracePass[];
  steps: TraceEvent[];
  error: { type: string; message: string; node: string | null } | null;
}

export function isGraph(data: unknown): data is GraphData {
  const d = data as GraphData;
  return !!d && typeof d === "object" && Array.isArray(d.nodes) && Array.isArray(d.edges);
}

export function isTrace(data: unknown): data is TraceData {
  const d = data as TraceData;
  return !!d && typeof d === "object" && Array.isArray(d.passes) && Array.isArray(d.steps);
}

/** "[5, 5]", "3.5", "[[1, 2], [3, 4]]", with at most `limit` numbers shown. */
export function formatValues(v: TensorValues | null | undefined, limit = 8): string {
  if (!v) return "None";
  const fmt = (x: number | boolean | string) =>
    typeof x === "number" ? (Number.isInteger(x) ? String(x) : Number(x.toPrecision(4)).toString()) : String(x);
  if (v.shape.length === 0) return v.values.length ? fmt(v.values[0]) : "?";
  const shown = v.values.slice(0, limit).map(fmt);
  const more = v.numel > shown.length;
  if (v.shape.length === 1) return `[${shown.join(", ")}${more ? ", …" : ""}]`;
  // Higher rank: nest the shown values by the last dimension.
  const last = v.shape[v.shape.length - 1];
  const rows: string[] = [];
  for (let i = 0; i < shown.length; i += last) rows.push(`[${shown.slice(i, i + last).join(", ")}]`);
  return `[${rows.join(", ")}${more ? ", …" : ""}]`;
}

export function formatShape(shape: number[]): string {
  return `[${shape.join(", ")}]`;
}

export interface MemoryEvent {
  kind: "save" | "free";
  id: string;
  bytes: number;
  held_bytes: number;
  held_tensors: number;
  /** The saved tensor's storage ("m0", ...): a storage saved again is held once. */
  storage: string;
  node: string | null;
  name: string | null;
  shape: number[] | null;
  dtype: string | null;
  phase: "forward" | "backward";
}

export interface MemoryData {
  version: number;
  kind: "memory";
  label: string | null;
  events: MemoryEvent[];
  totals: {
    forward_tensors: number;
    forward_bytes: number;
    peak_bytes: number;
    held_bytes: number;
    held_tensors: number;
    events: number;
    dropped_events: number;
  };
}

export function isMemory(data: unknown): data is MemoryData {
  const d = data as MemoryData;
  return !!d && typeof d === "object" && d.kind === "memory" && Array.isArray(d.events);
}
