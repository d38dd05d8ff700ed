// The learner's progress, kept in this browser: per lesson, read (and when it was last marked)
// and the cells run (and whether their output matched); per exercise, the hints revealed.
// Public tests passed and Accepted are the exercise view's own status (exercises/view.ts,
// exerciseStatus). With an identity at the judge, ./sync.ts merges this copy with the judge's
// (server/progress.py): the same rules on both sides, so no fact is lost either way.

import type { ServerProgress } from "../exercises/api";

const KEY = "kael.learn.progress";
const STATUS_KEY = (id: string) => `kael.status.${id}`; // exercises/view.ts keeps an exercise's status there
const STATUS_ORDER = ["new", "attempted", "passed", "accepted"];

/** exercises/view.ts's exerciseStatus, read here without importing the view (it imports hints.ts, which imports this). */
function exerciseStatus(id: string): string {
  let value: string | null = null;
  try {
    value = localStorage.getItem(STATUS_KEY(id));
  } catch {
    // unreadable: new
  }
  return value && STATUS_ORDER.includes(value) ? value : "new";
}

export type CellResult = "matched" | "differs";

interface LessonEntry {
  read?: boolean;
  read_at?: number; // ms since the epoch; the newer mark wins a merge
  cells?: Record<string, CellResult>;
}

interface Saved {
  lessons: Record<string, LessonEntry>;
  hints: Record<string, number>;
}

function load(): Saved {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? "{}") as Partial<Saved>;
    const object = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, never>) : {});
    return { lessons: object(value?.lessons), hints: object(value?.hints) };
  } catch {
    return { lessons: {}, hints: {} };
  }
}

function save(value: Saved): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(value));
  } catch {
    // storage full or disabled: progress is just not kept
  }
}

/** `local`: the learner did something here (sync.ts pushes it); `server`: the judge's copy merged in. */
export type ChangeSource = "local" | "server";
const listeners = new Set<(source: ChangeSource) => void>();

function change(edit: (value: Saved) => void, source: ChangeSource = "local"): void {
  const value = load();
  edit(value);
  save(value);
  for (const listener of listeners) listener(source);
}

function mergeCells(into: Record<string, CellResult>, from: Record<string, CellResult>): Record<string, CellResult> {
  const out = { ...into };
  for (const [name, result] of Object.entries(from)) if (out[name] !== "matched") out[name] = result;
  return out;
}

function raiseStatus(id: string, next: "passed" | "accepted"): void {
  if (STATUS_ORDER.indexOf(next) <= STATUS_ORDER.indexOf(exerciseStatus(id))) return;
  try {
    localStorage.setItem(STATUS_KEY(id), next);
  } catch {
    // not kept
  }
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export const progress = {
  onChange(listener: (source: ChangeSource) => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  read: (lesson: string) => load().lessons[lesson]?.read === true,
  setRead: (lesson: string, read: boolean) =>
    change((v) => {
      v.lessons[lesson] = { ...v.lessons[lesson], read, read_at: Date.now() };
    }),
  cells: (lesson: string): Record<string, CellResult> => load().lessons[lesson]?.cells ?? {},
  setCell: (lesson: string, cell: string, result: CellResult) =>
    change((v) => {
      const entry = (v.lessons[lesson] ??= {});
      // A cell once matched stays counted as run; a later differing run is shown, not recorded.
      if (entry.cells?.[cell] !== "matched") entry.cells = { ...entry.cells, [cell]: result };
    }),
  hintsShown: (exercise: string) => load().hints[exercise] ?? 0,
  setHintsShown: (exercise: string, shown: number) =>
    change((v) => {
      v.hints[exercise] = Math.max(shown, v.hints[exercise] ?? 0);
    }),

  /** This browser's copy as the judge takes it: only the lessons and cells of this build
   * (`lessons`: id to cell names) and the exercises the judge lists, so that a lesson renamed
   * since does not make the judge refuse the whole copy. */
  snapshot(lessons: Map<string, string[]>, exercises: string[]): ServerProgress {
    const saved = load();
    const out: ServerProgress = { lessons: {}, exercises: {} };
    for (const [id, entry] of Object.entries(saved.lessons)) {
      const names = lessons.get(id);
      if (!names || !entry || typeof entry !== "object") continue;
      const cells = Object.fromEntries(Object.entries(entry.cells ?? {}).filter(([n, r]) => names.includes(n) && (r === "matched" || r === "differs")));
      const at = Number.isSafeInteger(entry.read_at) && (entry.read_at as number) >= 0 ? (entry.read_at as number) : 0;
      out.lessons[id] = { read: entry.read === true, read_at: at, cells };
    }
    for (const id of exercises) {
      if (!ID.test(id)) continue;
      const hints = Math.min(50, Math.max(0, Math.floor(Number(saved.hints[id]) || 0)));
      const status = exerciseStatus(id);
      const passed = status === "passed" || status === "accepted";
      if (hints || passed) out.exercises[id] = { hints, passed };
    }
    return out;
  },

  /** Merge the judge's copy into this browser's (union of facts, the newer read mark); the
   * judge's Accepted and passed raise the exercise's status. True when anything changed. */
  mergeServer(copy: ServerProgress): boolean {
    const before = localStorage.getItem(KEY);
    const statuses: [string, "passed" | "accepted"][] = [];
    for (const [id, entry] of Object.entries(copy.exercises ?? {})) {
      if (entry.accepted) statuses.push([id, "accepted"]);
      else if (entry.passed) statuses.push([id, "passed"]);
    }
    const raised = statuses.some(([id, s]) => STATUS_ORDER.indexOf(s) > STATUS_ORDER.indexOf(exerciseStatus(id)));
    statuses.forEach(([id, s]) => raiseStatus(id, s));
    const value = load();
    for (const [id, theirs] of Object.entries(copy.lessons ?? {})) {
      const mine = value.lessons[id] ?? {};
      const newer = (theirs.read_at ?? 0) > (mine.read_at ?? 0) || ((theirs.read_at ?? 0) === (mine.read_at ?? 0) && theirs.read);
      value.lessons[id] = {
        ...(newer ? { read: theirs.read, read_at: theirs.read_at } : { read: mine.read, read_at: mine.read_at }),
        cells: mergeCells(mine.cells ?? {}, theirs.cells ?? {}),
      };
    }
    for (const [id, entry] of Object.entries(copy.exercises ?? {})) {
      if (entry.hints > (value.hints[id] ?? 0)) value.hints[id] = entry.hints;
    }
    const changed = raised || JSON.stringify(value) !== before;
    if (changed) change((v) => Object.assign(v, value), "server");
    return changed;
  },
};
