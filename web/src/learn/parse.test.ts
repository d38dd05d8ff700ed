import { describe, expect, it } from "vitest";
import { parseLesson, splitHints } from "./parse";

describe("lesson text", () => {
  it("reads questions above the rule and cells in the text", () => {
    const lesson = parseLesson("Q: one?\nA: first\nline two\n\nQ: two?\nA: second\n\n---\n\nIntro $x$.\n\n@cell walk\n\nAfter.\n@cell saved\n");
    expect(lesson.questions).toEqual([
      { q: "one?", a: "first\nline two" },
      { q: "two?", a: "second" },
    ]);
    expect(lesson.parts).toEqual([
      { kind: "text", text: "Intro $x$." },
      { kind: "cell", name: "walk" },
      { kind: "text", text: "After." },
      { kind: "cell", name: "saved" },
    ]);
  });

  it("has no questions without the rule", () => {
    expect(parseLesson("Just text.").questions).toEqual([]);
  });
});

describe("hints", () => {
  it("makes one hint per top-level item, continuation lines included", () => {
    const { intro, hints } = splitHints("# Hints\n\nRead this first.\n\n* one\n  more of one\n* two\n1. three\n");
    expect(intro).toBe("Read this first.");
    expect(hints).toEqual(["one\nmore of one", "two", "three"]);
  });

  it("falls back to paragraphs", () => {
    expect(splitHints("# Hints\n\nFirst.\n\nSecond.\n").hints).toEqual(["First.", "Second."]);
  });
});
