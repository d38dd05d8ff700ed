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
  stopped_at: number | null;
  max_steps: number;
  held_bytes: number;
  graph: GraphData | null;
  trace: TraceData | null; // the run's backward passes (the playground's stepper records them)
  stopped: boolean; // Stop ended the run
  source: string[]; // the program's lines, as run
}

export function isForward(data: unknown): data is ForwardData {
  const d = data as ForwardData;
  return !!d && typeof d === "object" && d.kind === "forward" && Array.isArray(d.steps);
}
