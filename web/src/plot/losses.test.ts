import { describe, expect, it } from "vitest";
import { isLossBatch, LossRuns, seriesName } from "./losses";

describe("loss batches", () => {
  it("accepts the watch's shape and refuses others", () => {
    expect(isLossBatch({ runs: [{ id: 0, name: "Adam", points: [[0, 0.7], [1, null]] }] })).toBe(true);
    expect(isLossBatch({ runs: [{ id: 0, name: "Adam", points: [["0", 0.7]] }] })).toBe(false);
    expect(isLossBatch({ runs: "no" })).toBe(false);
    expect(isLossBatch(null)).toBe(false);
  });

  it("names one optimizer's series loss and several by class and order", () => {
    expect(seriesName({ id: 0, name: "Adam" }, 1)).toBe("loss");
    expect(seriesName({ id: 1, name: "SGD" }, 2)).toBe("loss (SGD 2)");
  });

  it("renames the first series when a second optimizer steps", () => {
    const runs = new LossRuns();
    expect(runs.take({ runs: [{ id: 0, name: "Adam", points: [[0, 1]] }] })).toEqual([]);
    expect(runs.name(0)).toBe("loss");
    expect(runs.take({ runs: [{ id: 1, name: "SGD", points: [[0, 2]] }] })).toEqual([{ from: "loss", to: "loss (Adam 1)" }]);
    expect(runs.name(1)).toBe("loss (SGD 2)");
    runs.clear();
    expect(runs.take({ runs: [{ id: 0, name: "SGD", points: [] }] })).toEqual([]);
    expect(runs.name(0)).toBe("loss");
  });
});
