import { beforeEach, describe, expect, it } from "vitest";
import { outputMatches } from "./cell";
import { progress } from "./progress";

describe("learner progress", () => {
  beforeEach(() => localStorage.clear());

  it("keeps read, cells and hints per lesson and exercise", () => {
    progress.setRead("01-a", true);
    progress.setCell("01-a", "walk", "matched");
    progress.setHintsShown("graph-walk", 2);
    expect(progress.read("01-a")).toBe(true);
    expect(progress.read("02-b")).toBe(false);
    expect(progress.cells("01-a")).toEqual({ walk: "matched" });
    expect(progress.hintsShown("graph-walk")).toBe(2);
    expect(JSON.parse(localStorage.getItem("kael.learn.progress")!).lessons["01-a"]).toEqual({ read: true, cells: { walk: "matched" } });
  });

  it("does not forget a matched cell or a shown hint", () => {
    progress.setCell("01-a", "walk", "matched");
    progress.setCell("01-a", "walk", "differs");
    progress.setHintsShown("x", 3);
    progress.setHintsShown("x", 1);
    expect(progress.cells("01-a").walk).toBe("matched");
    expect(progress.hintsShown("x")).toBe(3);
  });

  it("survives unreadable storage", () => {
    localStorage.setItem("kael.learn.progress", "{not json");
    expect(progress.read("01-a")).toBe(false);
    progress.setRead("01-a", true);
    expect(progress.read("01-a")).toBe(true);
  });
});

describe("output comparison", () => {
  it("ignores trailing spaces and newlines only", () => {
    expect(outputMatches("a  \nb\n\n", "a\nb")).toBe(true);
    expect(outputMatches("a\nb", "a\nc")).toBe(false);
    expect(outputMatches(" a", "a")).toBe(false);
  });
});
