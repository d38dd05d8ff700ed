import { describe, expect, it } from "vitest";
import type { Cell, LearnerRow } from "./api";
import { cellRank, type GridView, visibleRows } from "./grid";

const cell = (best_verdict: string | null, attempts: number, stuck = false): Cell =>
  ({ best_verdict, attempts, first_accepted_at: null, late: 0, stuck });

const row = (display_name: string, cells: Record<string, Cell>): LearnerRow => ({
  id: display_name.toLowerCase(), display_name, joined_at: "2026-12-01T00:00:00Z", cells,
  solved: Object.values(cells).filter((c) => c.best_verdict === "Accepted").length,
});

const ROWS = [
  row("ben", { a: cell("Wrong Answer", 6, true), b: cell("Accepted", 1) }),
  row("Ada", { a: cell("Accepted", 3), b: cell("Accepted", 1) }),
  row("Cy", { a: cell(null, 0), b: cell("Syntax Error", 1) }),
  row("dee", { a: cell("Accepted", 1), b: cell(null, 0) }),
];
const view = (extra: Partial<GridView>): GridView => ({ sort: { by: "name" }, descending: false, filter: "", stuckOnly: false, ...extra });
const names = (rows: LearnerRow[]) => rows.map((r) => r.display_name);

describe("the teacher's grid", () => {
  it("sorts by name without regard to case, and back", () => {
    expect(names(visibleRows(ROWS, view({})))).toEqual(["Ada", "ben", "Cy", "dee"]);
    expect(names(visibleRows(ROWS, view({ descending: true })))).toEqual(["dee", "Cy", "ben", "Ada"]);
  });

  it("sorts by solved count, keeping the joining order among equals", () => {
    expect(names(visibleRows(ROWS, view({ sort: { by: "solved" }, descending: true })))).toEqual(["Ada", "ben", "dee", "Cy"]);
  });

  it("sorts an exercise's column by verdict, then fewer attempts first", () => {
    const sorted = visibleRows(ROWS, view({ sort: { by: "exercise", id: "a" }, descending: true }));
    expect(names(sorted)).toEqual(["dee", "Ada", "ben", "Cy"]);
  });

  it("ranks no attempt below every verdict", () => {
    expect(cellRank(cell(null, 0))).toBe(0);
    expect(cellRank(cell("Syntax Error", 50))).toBeGreaterThan(0);
    expect(cellRank(cell("Accepted", 9))).toBeGreaterThan(cellRank(cell("Wrong Answer", 1)));
  });

  it("filters by part of a name and by being stuck", () => {
    expect(names(visibleRows(ROWS, view({ filter: " E " })))).toEqual(["ben", "dee"]);
    expect(names(visibleRows(ROWS, view({ stuckOnly: true })))).toEqual(["ben"]);
    expect(visibleRows(ROWS, view({ filter: "zz" }))).toEqual([]);
  });
});
