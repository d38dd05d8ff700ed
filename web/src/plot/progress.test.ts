import { describe, expect, it } from "vitest";
import { progressText } from "./progress";

describe("progress text", () => {
  it("says what is counted and how far", () => {
    expect(progressText({ value: 5, total: 14, label: "matrix products" })).toBe("matrix products 5/14 (35%)");
    expect(progressText({ value: 3, total: 64, label: "matmul [64, 256] @ [256, 1024]: rows", source: "kael" })).toBe(
      "kael: matmul [64, 256] @ [256, 1024]: rows 3/64 (4%)",
    );
  });

  it("names an unlabelled count and survives a zero total", () => {
    expect(progressText({ value: 1, total: 0 })).toBe("progress 1/0");
    expect(progressText({ value: 2, total: 4 }, "zh")).toBe("进度 2/4 (50%)");
  });
});
