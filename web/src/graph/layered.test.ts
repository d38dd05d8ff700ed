import { describe, expect, it } from "vitest";
import { layeredLayout } from "./layered";
import type { LayoutRequest } from "./positions";

const box = (id: string, width = 80, height = 30) => ({ id, width, height, parent: null });
const link = (from: string, to: string) => ({ id: `${from}>${to}`, from, to });

describe("the layered layout", () => {
  // The diamond's backward graph: Sum -> Add -> (Mul, Mul) -> AccumulateGrad.
  const diamond: LayoutRequest = {
    nodes: ["sum", "add", "mul1", "mul2", "acc"].map((id) => box(id)),
    clusters: [],
    links: [link("sum", "add"), link("add", "mul1"), link("add", "mul2"), link("mul1", "acc"), link("mul2", "acc")],
  };

  it("puts every consumer above its inputs, one rank per step", () => {
    const { positions } = layeredLayout(diamond);
    const y = (id: string) => positions[id].y;
    expect(y("sum")).toBeLessThan(y("add"));
    expect(y("add")).toBeLessThan(y("mul1"));
    expect(y("mul1")).toBe(y("mul2"));
    expect(y("mul1")).toBeLessThan(y("acc"));
  });

  it("keeps boxes of one rank apart and inside the drawing (a margin around all)", () => {
    const { positions, width } = layeredLayout(diamond);
    const half = 40; // every box is 80 wide
    const [a, b] = [positions.mul1, positions.mul2].sort((p, q) => p.x - q.x);
    expect(a.x + half).toBeLessThan(b.x - half);
    for (const p of Object.values(positions)) {
      expect(p.x - half).toBeGreaterThan(0);
      expect(p.x + half).toBeLessThan(width);
    }
  });

  it("draws each link from the consumer's bottom to the input's top", () => {
    const { positions, points } = layeredLayout(diamond);
    const line = points["sum>add"];
    expect(line[0]).toEqual({ x: positions.sum.x, y: positions.sum.y + 15 });
    expect(line[line.length - 1]).toEqual({ x: positions.add.x, y: positions.add.y - 15 });
  });

  it("lays out a 5,000-node chain (dagre overflowed its stack at 2,500)", () => {
    const ids = Array.from({ length: 5000 }, (_, i) => `n${i}`);
    const result = layeredLayout({ nodes: ids.map((id) => box(id)), clusters: [], links: ids.slice(1).map((id, i) => link(ids[i], id)) });
    for (let i = 1; i < ids.length; i++) expect(result.positions[ids[i]].y).toBeGreaterThan(result.positions[ids[i - 1]].y);
  });

  it("ignores links to unknown boxes and self-links", () => {
    const result = layeredLayout({ nodes: [box("a")], clusters: [], links: [link("a", "a"), link("a", "ghost")] });
    expect(Object.keys(result.positions)).toEqual(["a"]);
  });
});
