import { describe, expect, it } from "vitest";
import { SITE_FILES } from "./site_files";

// Every Python file of web/src/worker (the glob is resolved on disk, not from the list).
const PYTHON = Object.keys(import.meta.glob("./*.py")).map((file) => file.slice(2)).sort();

describe("the files the worker writes beside kael (site_files.json)", () => {
  it("are every Python module of the worker, once each, and the display kinds they read", () => {
    const listed = SITE_FILES.map((file) => file.name);
    expect(PYTHON).toContain("playground.py");
    expect(listed.filter((name) => name.endsWith(".py")).sort()).toEqual(PYTHON);
    expect(listed).toContain("display_kinds.json");
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("carry each file's text", () => {
    const playground = SITE_FILES.find((file) => file.name === "playground.py");
    expect(playground?.text).toContain("def run(request_json: str) -> str:");
    for (const { text } of SITE_FILES) expect(text.length).toBeGreaterThan(0);
  });
});
