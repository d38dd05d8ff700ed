// Progress kept on the judge for a learner who has an identity there (a client token, minted at
// the first submission or taken from another browser's learner key): on load this browser's copy
// is merged into the judge's and the merged copy back into this one (one POST api/progress does
// both), and every later change is pushed, debounced. Without a judge (static hosting), or before
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

  const once = async () => {
    const copy = progress.snapshot(lessons, await exercises());
    const merged = await judge.mergeProgress(copy);
    // Refused or unreachable: this browser keeps its copy and tries again at the next change.
    if (merged.ok) progress.mergeServer(merged.value);
  };
  const now = async (): Promise<void> => {
    if (!(await judge.probed) || judge.learnerKey() === null) return;
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        await once();
      } while (again);
    })().finally(() => (running = null));
    return running;
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void now();
    }, delay);
  };

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
