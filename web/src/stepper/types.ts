// The forward recording's shape (kael/viz/SCHEMA.md, kind "forward"), as the stepper reads it.

import type { GraphData, TraceData } from "../graph/types";

export interface ForwardLocal {
  name: string;
  shape: number[];
  dtype: string;
  requires_grad: boolean;
  is_leaf: boolean;
  grad_fn: string | null;
  node: number | null; // the recorded order of its grad_fn (or AccumulateGrad)
  version: number;
}

export interface ForwardSaved {
  node: number;
  name: string;
  shape: number[];
  dtype: string;
  bytes: number;
}

export interface ForwardStep {
  step: number; // 1-based
  line: number;
  function: string;
  locals: ForwardLocal[];
  more_locals: number;
  nodes: { order: number; name: string }[];
  saved: ForwardSaved[];
  held_bytes: number;
}

export interface ForwardData {
  version: number;
  kind: "forward";
  filename: string;
  steps: ForwardStep[];
  nodes: number;
  truncated: boolean;
  cut_by: "steps" | "nodes" | null; // the cap that cut the recording
  stopped_at: number | null;
  max_steps: number;
  max_nodes: number;
  held_bytes: number;
  graph: GraphData | null; // null also when the graph has more than max_graph_nodes nodes
  graph_nodes: number;
  max_graph_nodes: number;
  trace: TraceData | null; // the run's first backward passes (the playground's stepper records them)
  backward?: BackwardKept; // what the playground's recording kept of the backward passes
  stopped: boolean; // Stop ended the run
  source: string[]; // the program's lines, as run
}

/** The backward passes the playground's recording traced, and those it let run untraced. */
export interface BackwardKept {
  traced: number;
  untraced: number;
  largest_untraced: number; // nodes of the largest pass left untraced for its size (0: none)
  max_passes: number | null;
  max_nodes: number | null;
  during: ({ step: number; line: number } | null)[]; // per traced pass: the forward step that ran it
}

export function isForward(data: unknown): data is ForwardData {
  const d = data as ForwardData;
  return !!d && typeof d === "object" && d.kind === "forward" && Array.isArray(d.steps);
}
