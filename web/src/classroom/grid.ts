// The teacher's grid as data: which rows show, in which order. Pure, so vitest tests it.

import type { Cell, LearnerRow } from "./api";

export type SortKey = { by: "name" } | { by: "solved" } | { by: "exercise"; id: string };

export interface GridView {
  sort: SortKey;
  descending: boolean;
  filter: string; // part of a display name, any case
  stuckOnly: boolean;
}

// Better verdicts first when a column sorts descending.
const RANK: Record<string, number> = {
  Accepted: 6, "Wrong Answer": 4, "Runtime Error": 3, "Time Limit Exceeded": 2,
  "Memory Limit Exceeded": 2, "Syntax Error": 1,
};

export function cellRank(cell: Cell | undefined): number {
  if (!cell || cell.attempts === 0) return 0;
  return (RANK[cell.best_verdict ?? ""] ?? 0.5) * 1000 - Math.min(cell.attempts, 999);
}

export function visibleRows(rows: LearnerRow[], view: GridView): LearnerRow[] {
  const needle = view.filter.trim().toLocaleLowerCase();
  const kept = rows.filter((row) =>
    (!needle || row.display_name.toLocaleLowerCase().includes(needle)) &&
    (!view.stuckOnly || Object.values(row.cells).some((c) => c.stuck)));
  const key = (row: LearnerRow): number | string => {
    if (view.sort.by === "name") return row.display_name.toLocaleLowerCase();
    if (view.sort.by === "solved") return row.solved;
    return cellRank(row.cells[view.sort.id]);
  };
  const sign = view.descending ? -1 : 1;
  return kept
    .map((row, index) => ({ row, index, k: key(row) }))
    .sort((a, b) => (a.k < b.k ? -sign : a.k > b.k ? sign : a.index - b.index))
    .map((entry) => entry.row);
}

