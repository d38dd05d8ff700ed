// Progress kept on the judge for a learner who has an identity there (a client token, minted at
// the first submission or taken from another browser's learner key): on load this browser's copy
// is merged into the judge's and the merged copy back into this one (one POST api/progress does
// both), and every later change is pushed, debounced. A push the judge could not take now (429 or
// 503: after its Retry-After) or that did not reach it is tried again, later each time, so the
// last change is not left behind until the next one. Without a judge (static hosting), or before
// the learner has an identity, progress stays in localStorage alone and nothing is requested.

import type { Result, ServerProgress } from "../exercises/api";
import { progress } from "./progress";

export interface ProgressJudge {
  /** True once a judge answered api/health. */
  probed: Promise<boolean>;
  learnerKey(): string | null;
  onIdentity(listener: () => void): void;
  mergeProgress(copy: ServerProgress): Promise<Result<ServerProgress>>;
}

export const PUSH_DELAY_MS = 800;
/** The first retry of a push that failed without a Retry-After; each next one waits twice as long, up to MAX. */
export const RETRY_MS = 5_000;
export const MAX_RETRY_MS = 5 * 60_000;

/** Worth trying again later: the judge was busy or limited us, or did not answer. A refusal of
 * the copy itself (401, 413, 422) would be refused again. */
function transient(result: { status?: number; unreachable?: boolean }): boolean {
  return result.unreachable === true || result.status === 429 || (result.status !== undefined && result.status >= 502 && result.status <= 504);
}

export interface ProgressSync {
  /** Merge now (and again after, if something changed meanwhile); resolves when done. */
  now(): Promise<void>;
}

export function syncProgress(
  judge: ProgressJudge,
  lessons: Map<string, string[]>,
  exercises: () => Promise<string[]>,
  delay = PUSH_DELAY_MS,
): ProgressSync {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  let notBefore = 0; // no push before this time (Date.now()): the judge's Retry-After
  let backoff = RETRY_MS;

  /** One push; false when it failed (a change made meanwhile goes with the retry, if any). */
  const once = async (): Promise<boolean> => {
    const copy = progress.snapshot(lessons, await exercises());
    const merged = await judge.mergeProgress(copy);
    if (merged.ok) {
      progress.mergeServer(merged.value);
      backoff = RETRY_MS;
      return true;
    }
    // This browser keeps its copy either way; a transient failure is tried again.
    if (!transient(merged)) return false;
    const wait = merged.retryAfter !== undefined ? merged.retryAfter * 1000 : backoff;
    backoff = Math.min(backoff * 2, MAX_RETRY_MS);
    notBefore = Date.now() + wait;
    schedule(wait);
    return false;
  };
  const now = async (): Promise<void> => {
    if (!(await judge.probed) || judge.learnerKey() === null) return;
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let pushed: boolean;
      do {
        again = false;
        pushed = await once();
      } while (again && pushed);
    })().finally(() => (running = null));
    return running;
  };
  function schedule(ms: number) {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void now();
    }, ms);
  }
  const later = () => schedule(Math.max(delay, notBefore - Date.now()));

  progress.onChange((source) => source === "local" && later());
  judge.onIdentity(() => void now());
  // The tab hidden (closed, reloaded, switched away): what is waiting goes now.
  addEventListener("pagehide", () => {
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    void now();
  });
  void now();
  return { now };
}
