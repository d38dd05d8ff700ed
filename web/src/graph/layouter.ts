// The page's side of the layout worker: one worker for the page, a promise per request.

import type { LayoutRequest, LayoutResult } from "./positions";

let worker: Worker | null = null;
let nextId = 1;
const waiting = new Map<number, { resolve: (r: LayoutResult) => void; reject: (e: Error) => void }>();

function start(): Worker {
  const w = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
  w.onmessage = (e: MessageEvent<{ id: number; result?: LayoutResult; error?: string }>) => {
    const pending = waiting.get(e.data.id);
    waiting.delete(e.data.id);
    if (!pending) return;
    if (e.data.result) pending.resolve(e.data.result);
    else pending.reject(new Error(`graph layout failed: ${e.data.error}`));
  };
  w.onerror = (e) => {
    e.preventDefault();
    for (const p of waiting.values()) p.reject(new Error(`graph layout worker failed: ${e.message ?? "it could not start"}`));
    waiting.clear();
    worker = null;
  };
  return w;
}

/** Positions for `request`, computed off the page's thread. */
export function layoutInWorker(request: LayoutRequest): Promise<LayoutResult> {
  worker ??= start();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker!.postMessage({ id, request });
  });
}
