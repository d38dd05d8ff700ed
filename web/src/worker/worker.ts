/// <reference lib="webworker" />
// The module worker that owns Pyodide. It only answers messages of protocol.ts; client.ts is
// the one place that creates it and talks to it.

import type { PyodideAPI } from "pyodide";
import {
  type Display,
  type FromWorker,
  type InitConfig,
  type RunOptions,
  type RunOutcome,
  type Stage,
  type StartKind,
  type ToWorker,
} from "./protocol";
import * as kernels from "./kernels.mjs";
import { thrownError } from "./errors";
import { SITE_FILES } from "./site_files";
import { fetchManifest, fetchSnapshot, firstLine, type Manifest, snapshotMismatch, SnapshotUnfit } from "./snapshot";

declare const self: DedicatedWorkerGlobalScope;

let py: PyodideAPI | null = null;
let interrupt: Uint8Array | null = null;
let currentId = 0;

function post(message: FromWorker): void {
  self.postMessage(message);
}

function stage(name: Stage, state: "start" | "done"): void {
  post({ type: "progress", stage: name, state });
}

/**
 * stdout/stderr as exact text (line-buffered, as in a terminal), streamed while code runs.
 * Writes are coalesced: the first few of a window are posted at once (a print shows without
 * delay), later ones are batched and posted when the window has passed (and at the end of the
 * run), so a print loop sends the page at most a few messages a window, never one per print.
 * A batch keeps only its newest MAX_BATCH characters (the console keeps no more than that).
 * Python runs synchronously here, so "later" is the next write after the window, not a timer.
 */
const WINDOW_MS = 50;
const POSTS_PER_WINDOW = 4;
const MAX_BATCH = 200_000;
let windowStart = 0;
let postsInWindow = 0;
let batch: { kind: "stdout" | "stderr"; text: string }[] = [];
let batchSize = 0;

function flushOutput(): void {
  trimBatch();
  for (const { kind, text } of batch) post({ type: kind, id: currentId, text });
  batch = [];
  batchSize = 0;
}

function postOutput(kind: "stdout" | "stderr", text: string): void {
  const now = performance.now();
  if (now - windowStart >= WINDOW_MS) {
    flushOutput();
    windowStart = now;
    postsInWindow = 0;
  }
  if (postsInWindow < POSTS_PER_WINDOW && batch.length === 0) {
    postsInWindow++;
    post({ type: kind, id: currentId, text });
    return;
  }
  const last = batch[batch.length - 1];
  if (last && last.kind === kind) last.text += text;
  else batch.push({ kind, text });
  batchSize += text.length;
  if (batchSize > 2 * MAX_BATCH) trimBatch(); // amortized: a slice per MAX_BATCH characters, not per print
}

/** Keep the batch's newest MAX_BATCH characters. */
function trimBatch(): void {
  while (batchSize > MAX_BATCH && batch.length) {
    const excess = batchSize - MAX_BATCH;
    if (batch[0].text.length <= excess) batchSize -= batch.shift()!.text.length;
    else {
      batch[0].text = batch[0].text.slice(excess);
      batchSize -= excess;
    }
  }
}

function writer(kind: "stdout" | "stderr") {
  const decoder = new TextDecoder();
  return {
    isatty: true,
    write(buffer: Uint8Array): number {
      const text = decoder.decode(buffer, { stream: true });
      if (text) postOutput(kind, text);
      return buffer.length;
    },
  };
}

/** A display kind is a name (the panels decide which they draw; the others are dropped there). */
const DISPLAY_KIND_NAME = /^[a-z][a-z0-9_-]{0,39}$/;
const PART_ITEMS = 500;

function emit(kind: string, json: string): void {
  if (!DISPLAY_KIND_NAME.test(kind)) return;
  const payload = JSON.parse(json) as Record<string, unknown>;
  flushOutput(); // keep output and drawings in the order the program made them
  postParts(payload.data);
  post({ type: "display", id: currentId, display: { kind, ...payload } as Display });
}

/** Posts the long arrays of `data` in parts of PART_ITEMS, leaving the last part in place: one
 * message with a 10,000-node graph took the page 90 ms to deserialize, in one task. */
function postParts(data: unknown): void {
  if (!data || typeof data !== "object") return;
  const record = data as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (!Array.isArray(value) || value.length <= PART_ITEMS) continue;
    let start = 0;
    for (; value.length - start > PART_ITEMS; start += PART_ITEMS) {
      post({ type: "display_part", id: currentId, key, items: value.slice(start, start + PART_ITEMS) });
    }
    record[key] = value.slice(start);
  }
}

/**
 * The "standard library" stage: loadPyodide downloads python_stdlib.zip with the global fetch
 * while the interpreter's wasm compiles; this reports when that download starts and ends.
 */
function watchStdlibDownload(): () => void {
  const realFetch = self.fetch;
  self.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.endsWith("/python_stdlib.zip")) return realFetch(input, init);
    stage("stdlib", "start");
    const response = await realFetch(input, init);
    const body = await response.arrayBuffer();
    stage("stdlib", "done");
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return () => {
    self.fetch = realFetch;
  };
}

/** The kael wheel's bytes, fetched while Pyodide loads (it is needed as soon as Pyodide is up). */
function fetchWheel(url: string): Promise<ArrayBuffer> {
  const wheel = fetch(url).then((response) => {
    if (!response.ok) throw new Error(`the kael wheel is missing: ${response.status} ${url}`);
    return response.arrayBuffer();
  });
  wheel.catch(() => {}); // awaited (and so reported) after loadPyodide, not as an unhandled rejection
  return wheel;
}

/**
 * The wheel's precompiled modules (checked-hash .pyc: used only while they match the sources),
 * or null when they cannot be had: kael then compiles from source, only slower.
 */
function fetchBytecode(url: string): Promise<ArrayBuffer | null> {
  return fetch(url)
    .then((response) => (response.ok ? response.arrayBuffer() : null))
    .catch(() => null);
}

/** The environment Python starts with; a snapshot records the one it was made with, which must be this. */
const ENV = { KAEL_BACKEND: "python", HOME: "/home/pyodide", PYTHONDONTWRITEBYTECODE: "1" };

/** The JavaScript objects kael's Python side holds, by the names a snapshot refers to them by
 * (scripts/snapshot.mjs registers stand-ins under the same names when it makes the snapshot). */
const OBJECTS: Record<string, object> = {
  kael_worker: { emit },
  // kael's JavaScript kernels (kael/backend/pyarray/js_kernel.py), found when kael is imported.
  kael_kernels: { ...kernels },
};

type LoadPyodide = (options: object) => Promise<PyodideAPI>;

async function init(id: number, config: InitConfig): Promise<void> {
  stage("runtime", "start");
  const wheelBytes = fetchWheel(config.wheelUrl);
  const manifest = fetchManifest(config.snapshotManifestUrl);
  const pyodide = (await import(/* @vite-ignore */ `${config.pyodideUrl}pyodide.mjs`)) as { loadPyodide: LoadPyodide; version: string };
  const restoreFetch = watchStdlibDownload();
  let started: Started;
  try {
    started = await startPython(pyodide, config, manifest, wheelBytes);
  } finally {
    restoreFetch();
  }
  const { runtime, start, bytecode } = started;
  runtime.setStdout(writer("stdout"));
  runtime.setStderr(writer("stderr"));
  if (config.interruptBuffer) {
    interrupt = new Uint8Array(config.interruptBuffer);
    runtime.setInterruptBuffer(interrupt);
  }
  stage("runtime", "done");

  stage("kael", "start");
  const versions = installKael(runtime, start, await wheelBytes, await bytecode);
  stage("kael", "done");
  py = runtime;
  post({ type: "ready", id, versions: { ...versions, pyodide: runtime.version }, start });
}

/** A started Python, how it started, and kael's precompiled modules where a normal start needs them. */
interface Started {
  runtime: PyodideAPI;
  start: StartKind;
  bytecode: Promise<ArrayBuffer | null>;
}

/**
 * Pyodide restored from the build's memory snapshot when it fits this page (the manifest names
 * this Pyodide, its build, this environment, this wheel and these site files, and the bytes
 * arrive whole), else
 * started normally; the reason it was not restored is logged and returned. Only a normal start
 * fetches kael's precompiled modules: a restored heap has every kael module imported already.
 */
async function startPython(
  pyodide: { loadPyodide: LoadPyodide; version: string },
  config: InitConfig,
  manifest: Promise<Manifest | string>,
  wheel: Promise<ArrayBuffer>,
): Promise<Started> {
  const options = { indexURL: config.pyodideUrl, env: { ...ENV }, checkAPIVersion: true };
  const page = { version: pyodide.version, pyodideUrl: config.pyodideUrl, wheel, env: ENV, objects: Object.keys(OBJECTS) };
  let reason = await snapshotMismatch(await manifest, page);
  if (reason === null) {
    const began = performance.now();
    const bytes = fetchSnapshot(config.snapshotUrl, (await manifest) as Manifest);
    bytes.catch(() => {}); // loadPyodide awaits it and rejects with it
    try {
      const runtime = await pyodide.loadPyodide({ ...options, _loadSnapshot: bytes, _snapshotDeserializer: deserialize });
      const restoreMs = performance.now() - began;
      console.info(`kael playground: Python restored from the memory snapshot in ${Math.round(restoreMs)} ms`);
      return { runtime, start: { kind: "snapshot", restoreMs }, bytecode: Promise.resolve(null) };
    } catch (error) {
      reason = error instanceof SnapshotUnfit ? error.message : `the snapshot did not load: ${firstLine(error)}`;
    }
  }
  console.warn(`kael playground: a normal start, not from the memory snapshot: ${reason}`);
  const bytecode = fetchBytecode(config.bytecodeUrl); // fetched while Pyodide starts
  return { runtime: await pyodide.loadPyodide(options), start: { kind: "normal", reason }, bytecode };
}

function deserialize(name: unknown): object {
  const object = typeof name === "string" ? OBJECTS[name] : undefined;
  if (!object) throw new Error(`the snapshot refers to a JavaScript object this page does not have: ${String(name)}`);
  return object;
}

/**
 * kael's files where Python looks for them (a restored snapshot has kael imported already, but
 * tracebacks, inspect and the tests read the sources) and, on a normal start, its precompiled
 * modules; then kael and playground imported, or (from a snapshot) the state that must not be
 * the build's: `random`'s seed.
 */
function installKael(runtime: PyodideAPI, start: StartKind, wheel: ArrayBuffer, compiled: ArrayBuffer | null) {
  const site = runtime.runPython("import sysconfig; sysconfig.get_paths()['purelib']") as string;
  runtime.unpackArchive(wheel, "wheel", { extractDir: site });
  try {
    if (compiled) runtime.unpackArchive(compiled, "zip", { extractDir: site });
  } catch (error) {
    console.warn("kael's precompiled modules could not be unpacked; compiling from source", error);
  }
  for (const { name, text } of SITE_FILES) runtime.FS.writeFile(`${site}/${name}`, text);
  if (start.kind === "normal") {
    runtime.registerJsModule("_kael_worker", OBJECTS.kael_worker);
    runtime.registerJsModule("_kael_kernels", OBJECTS.kael_kernels);
  }
  return JSON.parse(
    runtime.runPython(`
import json, random, sys, kael, playground
${start.kind === "snapshot" ? "random.seed()  # the snapshot holds the build's state of random" : ""}
playground.install_display_hook()
json.dumps({"python": sys.version.split()[0], "kael": getattr(kael, "__version__", "?")})
`) as string,
  ) as { python: string; kael: string };
}

function callPython(fn: "run" | "run_tests", argument: string): Record<string, unknown> {
  if (!py) throw new Error("Python is not ready");
  // The interrupt buffer is not reset here: the page resets it before it posts a run, so a
  // Stop pressed before this run began (its message still queued) stops it at once.
  const playground = py.pyimport("playground");
  try {
    // install_display_hook again: kael.viz may have been reloaded or imported late.
    playground.install_display_hook();
    return JSON.parse(playground[fn](argument) as string) as Record<string, unknown>;
  } finally {
    playground.destroy();
  }
}

function run(id: number, code: string, options: RunOptions): void {
  currentId = id;
  const started = performance.now();
  let outcome: RunOutcome;
  try {
    const result = callPython("run", JSON.stringify({ code, detect_source: options.detectSource, record_forward: options.recordForward }));
    outcome = result.ok
      ? { ok: true, value: (result.value as string | null) ?? null, durationMs: performance.now() - started }
      : { ok: false, error: result.error as never, durationMs: performance.now() - started };
  } catch (error) {
    outcome = { ok: false, error: thrownError(error), durationMs: performance.now() - started };
  }
  flushOutput();
  post({ type: "done", id, outcome });
}

function runTests(id: number, request: Extract<ToWorker, { type: "run_tests" }>["request"]): void {
  currentId = id;
  const started = performance.now();
  try {
    if (!py) throw new Error("Python is not ready");
    for (const file of request.files) {
      const dir = file.path.slice(0, file.path.lastIndexOf("/"));
      py.FS.mkdirTree(dir);
      py.FS.writeFile(file.path, file.text);
    }
    const result = callPython("run_tests", JSON.stringify(request));
    flushOutput();
    post({
      type: "tests_done",
      id,
      report: (result.report as never) ?? null,
      error: (result.error as never) ?? null,
      durationMs: performance.now() - started,
    });
  } catch (error) {
    flushOutput();
    post({ type: "tests_done", id, report: null, error: thrownError(error), durationMs: performance.now() - started });
  }
}

self.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  switch (message.type) {
    case "init":
      try {
        await init(message.id, message.config);
      } catch (error) {
        post({ type: "init_failed", id: message.id, message: String((error as Error)?.message ?? error) });
      }
      break;
    case "run":
      run(message.id, message.code, message.options);
      break;
    case "run_tests":
      runTests(message.id, message.request);
      break;
  }
};
