// The only code that creates the Pyodide worker or posts to it. Every reply, and every failure
// (a crashed worker, a Stop that Python ignores), becomes data for the UI: run() and runTests()
// never reject.

import type { Urls } from "../config";
import {
  DEFAULT_RUN_OPTIONS,
  type Display,
  type FromWorker,
  type PyError,
  type RunOptions,
  type RunOutcome,
  type Stage,
  type StartKind,
  type TestReport,
  type TestRunRequest,
  type ToWorker,
} from "./protocol";

export type RuntimeState =
  | { phase: "loading"; stage: Stage; startedAt: number; stages: StageTimes }
  | { phase: "ready"; versions: Versions; loadMs: number; stages: StageTimes; start: StartKind }
  | { phase: "running"; versions: Versions }
  | { phase: "failed"; message: string };

export type StageTimes = Partial<Record<Stage, { start: number; end?: number }>>;
export interface Versions {
  python: string;
  pyodide: string;
  kael: string;
}

export type ClientEvent =
  | { type: "state"; state: RuntimeState }
  | { type: "stdout" | "stderr"; text: string }
  | { type: "display"; display: Display }
  | { type: "worker_replaced"; reason: "stop_timeout" | "crashed" | "stop_without_isolation" };

export interface TestsOutcome {
  report: TestReport | null;
  error: PyError | null;
  durationMs: number;
}

type Pending =
  | { kind: "run"; id: number; resolve: (outcome: RunOutcome) => void; started: number }
  | { kind: "tests"; id: number; resolve: (outcome: TestsOutcome) => void; started: number };

const STOP_POLL_MS = 250;
const STOP_ASK_AGAIN_MS = 1000; // taken, and the run still goes on: ask again (a lost KeyboardInterrupt)
const STOP_GRACE_MS = 3000; // at load 27 on 2 cores, 1 of 50 busy loops took the Stop after more than a second
const STOP_UNWIND_MS = 10_000;
const SIGINT = 2;

export class PyodideClient {
  private worker: Worker | null = null;
  private interrupt: Uint8Array | null = null;
  private sab: SharedArrayBuffer | null = null;
  private nextId = 1;
  private initId = 0;
  private pending: Pending | null = null;
  private stopTimer: ReturnType<typeof setTimeout> | null = null;
  private listeners = new Set<(event: ClientEvent) => void>();
  private versions: Versions | null = null;
  private loaded: { loadMs: number; stages: StageTimes; start: StartKind } = {
    loadMs: 0,
    stages: {},
    start: { kind: "normal", reason: "not started" },
  };
  private parts = new Map<string, unknown[]>(); // a large display's arrays, arriving in parts
  state: RuntimeState = { phase: "loading", stage: "runtime", startedAt: performance.now(), stages: {} };

  constructor(private readonly urls: Urls) {}

  /** True when Stop can interrupt Python in place (the page is cross-origin isolated). */
  get canInterrupt(): boolean {
    return this.sab !== null;
  }

  get busy(): boolean {
    return this.pending !== null;
  }

  on(listener: (event: ClientEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.spawn();
  }

  run(code: string, options: RunOptions = DEFAULT_RUN_OPTIONS): Promise<RunOutcome> {
    return new Promise((resolve) => {
      const refusal = this.refuse();
      if (refusal) return resolve({ ok: false, error: refusal, durationMs: 0 });
      const id = this.nextId++;
      this.pending = { kind: "run", id, resolve, started: performance.now() };
      this.setRunning();
      this.clearInterrupt();
      this.post({ type: "run", id, code, options });
    });
  }

  runTests(request: TestRunRequest): Promise<TestsOutcome> {
    return new Promise((resolve) => {
      const refusal = this.refuse();
      if (refusal) return resolve({ report: null, error: refusal, durationMs: 0 });
      const id = this.nextId++;
      this.pending = { kind: "tests", id, resolve, started: performance.now() };
      this.setRunning();
      this.clearInterrupt();
      this.post({ type: "run_tests", id, request });
    });
  }

  /**
   * Interrupt the running code. Python takes the Stop from the buffer (Pyodide sets it back to 0
   * when it raises the KeyboardInterrupt). The worker is replaced only if Python has not taken
   * it within STOP_GRACE_MS (it is blocked outside Python code: time.sleep, a long JavaScript
   * call), or if the run still goes on STOP_UNWIND_MS after the Stop. A run that has taken the
   * interrupt and still runs a second later is asked again, as a second Ctrl+C would: one
   * KeyboardInterrupt in 50 or so was lost on a loaded machine (taken from the buffer, and the
   * loop went on), and a program that catches one gets another.
   */
  stop(): void {
    const pending = this.pending;
    if (!pending) return;
    if (!this.interrupt) {
      this.replaceWorker("stop_without_isolation");
      return;
    }
    const interrupt = this.interrupt;
    interrupt[0] = SIGINT;
    if (this.stopTimer) clearTimeout(this.stopTimer);
    const stopped = performance.now();
    let askedAt = stopped;
    const check = () => {
      this.stopTimer = null;
      if (!this.pending || this.pending.id !== pending.id) return;
      const now = performance.now();
      if (interrupt[0] === SIGINT) {
        if (now - askedAt >= STOP_GRACE_MS) return this.replaceWorker("stop_timeout");
      } else {
        if (now - stopped >= STOP_UNWIND_MS) return this.replaceWorker("stop_timeout");
        if (now - askedAt >= STOP_ASK_AGAIN_MS) {
          interrupt[0] = SIGINT;
          askedAt = now;
        }
      }
      this.stopTimer = setTimeout(check, STOP_POLL_MS);
    };
    this.stopTimer = setTimeout(check, STOP_POLL_MS);
  }

  // -------------------------------------------------------------------------- internals

  private emit(event: ClientEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  private setState(state: RuntimeState): void {
    this.state = state;
    this.emit({ type: "state", state });
  }

  private setRunning(): void {
    if (this.versions) this.setState({ phase: "running", versions: this.versions });
  }

  private refuse(): PyError | null {
    let message: string | null = null;
    if (this.pending) message = "code is already running";
    else if (this.state.phase !== "ready") message = "Python is not ready yet";
    if (!message) return null;
    return { type: "RuntimeError", message, traceback: `RuntimeError: ${message}\n`, frames: [], lineno: null };
  }

  /** Only the page clears the interrupt, and only between runs: before it posts one (so that a
   * Stop pressed while that message waits in the worker's queue is not erased when the run
   * begins) and when one has ended. */
  private clearInterrupt(): void {
    if (this.interrupt) this.interrupt[0] = 0;
  }

  private post(message: ToWorker): void {
    this.worker?.postMessage(message);
  }

  private spawn(): void {
    if (typeof SharedArrayBuffer !== "undefined" && globalThis.crossOriginIsolated) {
      this.sab = new SharedArrayBuffer(1);
      this.interrupt = new Uint8Array(this.sab);
    }
    const worker = new Worker(new URL("./worker.ts", import.meta.url), { type: "module", name: "pyodide" });
    this.worker = worker;
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      if (this.worker === worker) this.receive(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      if (this.worker === worker) this.crashed(event.message || "the Python worker failed");
    };
    worker.onmessageerror = () => {
      if (this.worker === worker) this.crashed("a message from the Python worker could not be read");
    };
    const startedAt = performance.now();
    this.setState({ phase: "loading", stage: "runtime", startedAt, stages: {} });
    this.initId = this.nextId++;
    this.post({
      type: "init",
      id: this.initId,
      config: {
        pyodideUrl: this.urls.pyodide,
        wheelUrl: this.urls.wheel,
        bytecodeUrl: this.urls.bytecode,
        snapshotUrl: this.urls.snapshot,
        snapshotManifestUrl: this.urls.snapshotManifest,
        interruptBuffer: this.sab,
      },
    });
  }

  private replaceWorker(reason: "stop_timeout" | "crashed" | "stop_without_isolation"): void {
    const pending = this.pending;
    this.pending = null;
    if (this.stopTimer) clearTimeout(this.stopTimer);
    this.stopTimer = null;
    this.worker?.terminate();
    this.worker = null;
    if (pending) {
      const message =
        reason === "crashed"
          ? "the Python worker crashed; it was restarted"
          : "Python did not stop in time; the runtime was restarted";
      const error: PyError = {
        type: reason === "crashed" ? "WorkerCrashed" : "KeyboardInterrupt",
        message,
        traceback: `${reason === "crashed" ? "WorkerCrashed" : "KeyboardInterrupt"}: ${message}\n`,
        frames: [],
        lineno: null,
      };
      const durationMs = performance.now() - pending.started;
      if (pending.kind === "run") pending.resolve({ ok: false, error, durationMs });
      else pending.resolve({ report: null, error, durationMs });
    }
    this.emit({ type: "worker_replaced", reason });
    this.spawn();
  }

  private crashed(message: string): void {
    if (this.state.phase === "loading") {
      this.worker?.terminate();
      this.worker = null;
      this.setState({ phase: "failed", message });
      return;
    }
    this.replaceWorker("crashed");
  }

  private receive(message: FromWorker): void {
    switch (message.type) {
      case "progress": {
        if (this.state.phase !== "loading") return;
        const stages = { ...this.state.stages };
        const entry = stages[message.stage] ?? { start: performance.now() };
        if (message.state === "start") stages[message.stage] = { start: performance.now() };
        else stages[message.stage] = { ...entry, end: performance.now() };
        // The stage in progress: the latest one started and not done (stdlib overlaps runtime).
        const open = (["kael", "stdlib", "runtime"] as Stage[]).find((s) => stages[s] && stages[s]!.end === undefined);
        this.setState({ ...this.state, stage: open ?? message.stage, stages });
        return;
      }
      case "ready": {
        if (message.id !== this.initId) return;
        this.versions = message.versions;
        const stages = this.state.phase === "loading" ? this.state.stages : {};
        const loadMs = this.state.phase === "loading" ? performance.now() - this.state.startedAt : 0;
        this.loaded = { loadMs, stages, start: message.start };
        this.setState({ phase: "ready", versions: message.versions, ...this.loaded });
        return;
      }
      case "init_failed":
        if (message.id !== this.initId) return;
        this.worker?.terminate();
        this.worker = null;
        this.setState({ phase: "failed", message: message.message });
        return;
      case "stdout":
      case "stderr":
        if (this.pending?.id === message.id) this.emit({ type: message.type, text: message.text });
        return;
      case "display_part":
        if (this.pending?.id === message.id) {
          const list = this.parts.get(message.key);
          if (list) for (const item of message.items) list.push(item);
          else this.parts.set(message.key, message.items);
        }
        return;
      case "display":
        if (this.pending?.id === message.id) this.emit({ type: "display", display: this.joinParts(message.display) });
        this.parts.clear();
        return;
      case "done":
        if (this.pending?.kind === "run" && this.pending.id === message.id) {
          const pending = this.pending;
          this.finish();
          pending.resolve(message.outcome);
        }
        return;
      case "tests_done":
        if (this.pending?.kind === "tests" && this.pending.id === message.id) {
          const pending = this.pending;
          this.finish();
          pending.resolve({ report: message.report, error: message.error, durationMs: message.durationMs });
        }
        return;
    }
  }

  /** The display with the parts that came before it put back in front of its arrays. */
  private joinParts(display: Display): Display {
    if (this.parts.size === 0 || !("data" in display)) return display;
    const data = display.data as Record<string, unknown>;
    for (const [key, items] of this.parts) {
      const rest = data[key];
      if (Array.isArray(rest)) for (const item of rest) items.push(item);
      data[key] = items;
    }
    return display;
  }

  private finish(): void {
    this.pending = null;
    this.parts.clear();
    if (this.stopTimer) clearTimeout(this.stopTimer);
    this.stopTimer = null;
    this.clearInterrupt();
    if (this.versions) this.setState({ phase: "ready", versions: this.versions, ...this.loaded });
  }
}
