import { describe, expect, it } from "vitest";
import { addChain, diamond, reluLoop } from "../test/docs";
import { BAND_ABOVE, BAND_FANOUT, commonNames, depthBands, findRepeats, repeatLabel } from "./grouping";
import type { GraphData } from "./types";

const repeats = (g: GraphData) => findRepeats(g.nodes, g.edges, new Map(g.nodes.map((n) => [n.id, n])));

describe("repeated blocks", () => {
  it("find a run of ten adds as one block of period 1", () => {
    const found = repeats(addChain);
    expect(found).toHaveLength(1);
    expect(found[0].period).toBe(1);
    expect(found[0].names).toEqual(["AddBackward"]);
    expect(found[0].nodes).toHaveLength(10);
    expect(repeatLabel(found[0].names)).toBe("AddBackward");
  });

  it("find a loop body of three ops repeated five times", () => {
    const [loop, ...rest] = repeats(reluLoop);
    expect(rest).toEqual([]);
    expect(loop.period).toBe(3);
    expect(loop.nodes).toHaveLength(15);
    expect(repeatLabel(loop.names)).toBe("[Relu → Add → Mul]");
  });

  it("find nothing in a graph without repeats (the diamond)", () => {
    expect(repeats(diamond)).toEqual([]);
  });
});

describe("depth bands", () => {
  const chain = (n: number) => {
    const units = Array.from({ length: n }, (_, i) => `u${i}`);
    const links = units.slice(1).map((u, i) => [units[i], u] as [string, string]);
    return { units, links };
  };

  it("are not made for a graph small enough to draw", () => {
    const { units, links } = chain(BAND_ABOVE);
    expect(depthBands(units, links)).toEqual([]);
  });

  it("cover every unit once, at most BAND_FANOUT per level, deeper bands later", () => {
    const { units, links } = chain(5000);
    const bands = depthBands(units, links);
    expect(bands.length).toBeGreaterThan(1);
    expect(bands.length).toBeLessThanOrEqual(BAND_FANOUT);
    const all = bands.flatMap((b) => b.units);
    expect(new Set(all).size).toBe(5000);
    expect(all).toHaveLength(5000);
    for (let i = 1; i < bands.length; i++) expect(bands[i].depth[0]).toBeGreaterThan(bands[i - 1].depth[1]);
    for (const b of bands) {
      expect(b.children.length).toBeLessThanOrEqual(BAND_FANOUT);
      if (b.children.length) expect(b.children.flatMap((c) => c.units)).toEqual(b.units); // bands of bands
    }
  });

  it("put units on a cycle last instead of looping", () => {
    const { units, links } = chain(BAND_ABOVE + 10);
    links.push([units[units.length - 1], units[units.length - 2]]); // the last two feed each other
    const bands = depthBands(units, links);
    const last = bands[bands.length - 1].units;
    expect(last).toContain(units[units.length - 1]);
    expect(bands.flatMap((b) => b.units)).toHaveLength(units.length);
  });
});

describe("commonNames", () => {
  it("names the most frequent first, with counts", () => {
    expect(commonNames(["Mul", "Add", "Mul", "Sum", "Mul", "Add"])).toBe("Mul × 3, Add × 2");
    expect(commonNames([])).toBe("");
  });
});
