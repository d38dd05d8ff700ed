// The learner's progress, kept in this browser: per lesson, read and the cells run (and whether
// their output matched); per exercise, the hints revealed. Public tests passed and Accepted are
// the exercise view's own status (exercises/view.ts, exerciseStatus), read from there.

const KEY = "kael.learn.progress";

export type CellResult = "matched" | "differs";

interface Saved {
  lessons: Record<string, { read?: boolean; cells?: Record<string, CellResult> }>;
  hints: Record<string, number>;
}

function load(): Saved {
  try {
    const value = JSON.parse(localStorage.getItem(KEY) ?? "{}") as Partial<Saved>;
    return { lessons: value.lessons ?? {}, hints: value.hints ?? {} };
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

const listeners = new Set<() => void>();

function change(edit: (value: Saved) => void): void {
  const value = load();
  edit(value);
  save(value);
  for (const listener of listeners) listener();
}

export const progress = {
  onChange(listener: () => void): void {
    listeners.add(listener);
  },
  read: (lesson: string) => load().lessons[lesson]?.read === true,
  setRead: (lesson: string, read: boolean) =>
    change((v) => {
      v.lessons[lesson] = { ...v.lessons[lesson], read };
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
};
