// The one message protocol between the page and the Pyodide worker, both directions.
// Everything is plain structured-clone data; Python sends snake_case JSON, parsed here.

import type { TestStatus, Verdict } from "../exercises/verdicts";
import kinds from "./display_kinds.json";

/**
 * The kinds the playground itself draws, named once for TypeScript and Python: playground.py
 * reads the same display_kinds.json (the worker writes it next to playground.py). The kinds are
 * open: a panel may draw a kind of its own (`playground.display(kind, data)` or a kael.viz
 * document's "kind"), named only in its own file under web/src/panels/.
 */
export const DISPLAY_KIND = kinds as { readonly [K in keyof typeof kinds]: K };
export type DisplayKind = keyof typeof kinds;

export type Stage = "runtime" | "stdlib" | "kael";

export interface InitConfig {
  pyodideUrl: string; // absolute, ends with "/"
  wheelUrl: string; // absolute, ends with a valid wheel file name
  bytecodeUrl: string; // the wheel's modules compiled at build time (scripts/precompile.mjs)
  snapshotUrl: string; // Python's memory with kael imported, gzipped (scripts/snapshot.mjs)
  snapshotManifestUrl: string; // the build that snapshot fits, checked before it is used
  interruptBuffer: SharedArrayBuffer | null; // null when the page is not cross-origin isolated
}

/** A file written into the worker's file system before a test run (the harness, tests). */
/** How Python started: restored from the build's memory snapshot, or started and kael imported
 * (`reason`: why not from the snapshot, also logged in the worker's console). */
export type StartKind = { kind: "snapshot"; restoreMs: number } | { kind: "normal"; reason: string };

export interface VirtualFile {
  path: string; // absolute path inside Pyodide
  text: string;
}

export interface TestRunRequest {
  exercise_id: string;
  code: string; // the learner's solution
  tests_source: string; // the exercise's public tests
  module: string; // the module name the tests import the solution as
  solution_file: string;
  test_file: string;
  files: VirtualFile[]; // the harness package, written before the run
}

/** How a run goes: kael naming the lines of an in-place error (set_detect_source), and the
 * forward pass recorded line by line for the stepper (kael.viz.forward). */
export interface RunOptions {
  detectSource: boolean;
  recordForward: boolean;
}

export const DEFAULT_RUN_OPTIONS: RunOptions = { detectSource: true, recordForward: false };

// ------------------------------------------------------------------------------ page -> worker

export type ToWorker =
  | { type: "init"; id: number; config: InitConfig }
  | { type: "run"; id: number; code: string; options: RunOptions }
  | { type: "run_tests"; id: number; request: TestRunRequest };

// ------------------------------------------------------------------------------ worker -> page

export interface PyFrame {
  filename: string;
  lineno: number;
  name: string;
  line: string;
}

/** A line of the program an error involves, besides the one it was raised at: the in-place
 * version error's "saved here" and "modified here", and its "backward here". */
export interface SourceMark {
  line: number;
  kind: "saved" | "modified" | "backward";
  node: string | null; // the node that saved the tensor ("MulBackward")
  saved_version: number;
  version: number;
}

export interface PyError {
  type: string; // the Python class name, e.g. "KeyboardInterrupt"
  message: string;
  traceback: string; // formatted like CPython prints it
  frames: PyFrame[]; // the user's frames and library frames below them
  lineno: number | null; // the line in the editor where it happened, when known
  marks?: SourceMark[]; // other lines it involves (absent in errors made outside Python)
}

/**
 * Something user code asks the page to draw, emitted while it runs: a kind, and what
 * playground.py sent with it (a document under `data`, a plot's point as fields). Every panel is
 * offered every display and checks the shape of the kinds it draws (web/src/panels/).
 */
export interface Display {
  kind: string;
  data?: unknown;
  title?: string;
  [field: string]: unknown;
}

/** One test in the harness's report (exercises/harness/report.py); the server sends the same. */
export interface TestCaseReport {
  name: string;
  description?: string | null;
  status: TestStatus;
  message: string | null;
  duration_ms: number | null;
  hidden?: boolean;
}

/** The harness's one report shape, shared by the browser, judge.py and the server. */
export interface TestReport {
  verdict: Verdict; // exercises/harness/verdicts.json
  message: string;
  tests: TestCaseReport[];
  summary?: { total: number; passed: number; failed: number; error: number };
  /** The server's hidden tests: a count and the first that did not pass, never one row each. */
  hidden?: { total: number; passed: number; first_failed: string | null } | null;
  syntax_error?: { message: string; line: number; column: number; text: string } | null;
  graded?: boolean;
  public_only?: boolean;
  [extra: string]: unknown;
}

export type RunOutcome =
  | { ok: true; value: string | null; durationMs: number }
  | { ok: false; error: PyError; durationMs: number };

export type FromWorker =
  | { type: "progress"; stage: Stage; state: "start" | "done" }
  | { type: "ready"; id: number; versions: { python: string; pyodide: string; kael: string }; start: StartKind }
  | { type: "init_failed"; id: number; message: string }
  | { type: "stdout"; id: number; text: string }
  | { type: "stderr"; id: number; text: string }
  | { type: "display"; id: number; display: Display }
  // A large display's long arrays (a 10,000-node graph's nodes, edges and tensors) come first in
  // parts, so that the page deserializes them a slice per task; the display then holds the rest.
  | { type: "display_part"; id: number; key: string; items: unknown[] }
  | { type: "done"; id: number; outcome: RunOutcome }
  | { type: "tests_done"; id: number; report: TestReport | null; error: PyError | null; durationMs: number };
