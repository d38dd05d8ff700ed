import { describe, expect, it } from "vitest";
import { addChain, diamond, longChain } from "../test/docs";
import { GraphModel, MAX_ITEMS, OPEN_BELOW, REVEAL_STEP, summarize } from "./model";

const functionItems = (model: GraphModel, state = model.initialState()) =>
  model.view(state).items.filter((i) => i.kind === "function" || i.kind === "accumulate");

describe("the graph view model", () => {
  it("opens a small graph with every node drawn, each edge a link", async () => {
    const model = await GraphModel.build(diamond);
    const view = model.view(model.initialState());
    expect(functionItems(model).map((i) => i.id).sort()).toEqual(diamond.nodes.map((n) => n.id).sort());
    for (const e of diamond.edges) expect(view.linkOf.get(e.id)).toBe(e.id);
    expect(view.tooMany).toBe(false);
  });

  it("closes a run of adds into one box that stands for them all", async () => {
    const model = await GraphModel.build(addChain);
    const closed = model.view(model.allClosed());
    const group = closed.items.find((i) => i.kind === "group")!;
    expect(group.group?.kind).toBe("chain");
    expect(group.hidden).toBe(10);
    const adds = addChain.nodes.filter((n) => n.name === "AddBackward");
    for (const n of adds) expect(closed.itemOf.get(n.id)).toBe(group.id);
    // Opening it shows the nodes again; a link never joins a box to itself.
    const open = model.view(model.toggle(model.allClosed(), group.id));
    expect(open.items.some((i) => i.kind === "group")).toBe(false);
    for (const l of [...closed.links, ...open.links]) expect(l.from).not.toBe(l.to);
  });

  it("opens a long chain REVEAL_STEP nodes per click, then closes it", async () => {
    const n = 2 * REVEAL_STEP + 50;
    const model = await GraphModel.build(longChain(n));
    const state = model.initialState(); // larger than OPEN_BELOW: closed
    expect(n).toBeGreaterThan(OPEN_BELOW);
    const [chain] = [...model.groups.values()];
    expect(state.revealed.get(chain.id)).toBe(0);
    const once = model.toggle(state, chain.id);
    expect(once.revealed.get(chain.id)).toBe(REVEAL_STEP);
    const all = model.toggle(model.toggle(once, chain.id), chain.id);
    expect(all.revealed.get(chain.id)).toBe(n);
    expect(model.toggle(all, chain.id).revealed.get(chain.id)).toBe(0);
  });

  it("reveals the node a trace step is at, inside a closed chain", async () => {
    const model = await GraphModel.build(longChain(300));
    const state = model.reveal(model.allClosed(), "n120");
    expect(model.view(state).itemOf.get("n120")).toBe("n120");
  });

  it("says when a drawing would be too large and summarizes instead", async () => {
    const model = await GraphModel.build(longChain(MAX_ITEMS + 10));
    expect(model.view(model.allOpen()).tooMany).toBe(true);
    expect(model.countItems(model.allClosed())).toBeLessThan(MAX_ITEMS);
    expect(summarize(longChain(30))).toEqual([{ name: "AddBackward", count: 30 }]);
  });
});
