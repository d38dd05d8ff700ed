import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ServerProgress } from "../exercises/api";
import { outputMatches } from "./cell";
import { progress } from "./progress";
import type { Result } from "../exercises/identity";
import { MAX_RETRY_MS, RETRY_MS, syncProgress, type ProgressJudge } from "./sync";

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
    expect(JSON.parse(localStorage.getItem("kael.learn.progress")!).lessons["01-a"]).toMatchObject({ read: true, cells: { walk: "matched" } });
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

const LESSONS = new Map([["01-a", ["walk", "saved"]]]);

describe("progress merged with the judge's copy", () => {
  beforeEach(() => localStorage.clear());

  it("sends only this build's lessons and cells and the judge's exercises", () => {
    progress.setRead("01-a", true);
    progress.setCell("01-a", "walk", "matched");
    progress.setCell("01-a", "gone", "matched");
    progress.setRead("09-renamed", true);
    progress.setHintsShown("graph-walk", 2);
    progress.setHintsShown("not-on-the-judge", 1);
    localStorage.setItem("kael.status.saved-tensor", "passed");
    const copy = progress.snapshot(LESSONS, ["graph-walk", "saved-tensor"]);
    expect(Object.keys(copy.lessons)).toEqual(["01-a"]);
    expect(copy.lessons["01-a"]).toMatchObject({ read: true, cells: { walk: "matched" } });
    expect(copy.lessons["01-a"].read_at).toBeGreaterThan(0);
    expect(copy.exercises).toEqual({ "graph-walk": { hints: 2, passed: false }, "saved-tensor": { hints: 0, passed: true } });
  });

  it("takes the judge's facts without losing its own", () => {
    progress.setCell("01-a", "walk", "matched");
    progress.setHintsShown("graph-walk", 3);
    const judge: ServerProgress = {
      lessons: { "01-a": { read: true, read_at: Date.now() + 1000, cells: { walk: "differs", saved: "matched" } } },
      exercises: { "graph-walk": { hints: 1, passed: true, accepted: true }, "saved-tensor": { hints: 2, passed: true } },
    };
    const seen: string[] = [];
    const off = progress.onChange((source) => seen.push(source));
    expect(progress.mergeServer(judge)).toBe(true);
    off();
    expect(seen).toEqual(["server"]);
    expect(progress.read("01-a")).toBe(true);
    expect(progress.cells("01-a")).toEqual({ walk: "matched", saved: "matched" });
    expect(progress.hintsShown("graph-walk")).toBe(3);
    expect(progress.hintsShown("saved-tensor")).toBe(2);
    expect(localStorage.getItem("kael.status.graph-walk")).toBe("accepted");
    expect(localStorage.getItem("kael.status.saved-tensor")).toBe("passed");
    expect(progress.mergeServer(judge)).toBe(false); // nothing new the second time
  });

  it("keeps a newer local read mark over an older one from the judge", () => {
    progress.setRead("01-a", false);
    progress.mergeServer({ lessons: { "01-a": { read: true, read_at: 1, cells: {} } }, exercises: {} });
    expect(progress.read("01-a")).toBe(false);
  });
});

describe("syncing with the judge", () => {
  beforeEach(() => {
    localStorage.clear();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  function judge(answered: boolean, key: string | null) {
    const sent: ServerProgress[] = [];
    const fake: ProgressJudge & { sent: ServerProgress[]; identity?: () => void } = {
      sent,
      probed: Promise.resolve(answered),
      learnerKey: () => key,
      onIdentity: (listener) => (fake.identity = listener),
      mergeProgress: async (copy) => {
        sent.push(copy);
        return { ok: true, value: { lessons: {}, exercises: { "graph-walk": { hints: 4, passed: true } } } };
      },
    };
    return fake;
  }

  it("asks nothing without a judge, or before the learner has an identity", async () => {
    const none = judge(false, "k1.x");
    const anonymous = judge(true, null);
    syncProgress(none, LESSONS, async () => ["graph-walk"], 10);
    syncProgress(anonymous, LESSONS, async () => ["graph-walk"], 10);
    progress.setRead("01-a", true);
    await vi.runAllTimersAsync();
    expect(none.sent).toEqual([]);
    expect(anonymous.sent).toEqual([]);
    expect(progress.read("01-a")).toBe(true); // kept in this browser all the same
  });

  it("merges on load and pushes later changes once, debounced", async () => {
    const fake = judge(true, "k1.x");
    syncProgress(fake, LESSONS, async () => ["graph-walk"], 10);
    await vi.runAllTimersAsync();
    expect(fake.sent.length).toBe(1);
    expect(progress.hintsShown("graph-walk")).toBe(4); // the judge's copy merged in
    expect(localStorage.getItem("kael.status.graph-walk")).toBe("passed");
    progress.setCell("01-a", "walk", "matched");
    progress.setCell("01-a", "saved", "matched");
    await vi.runAllTimersAsync();
    expect(fake.sent.length).toBe(2);
    expect(fake.sent[1].lessons["01-a"].cells).toEqual({ walk: "matched", saved: "matched" });
  });

  /** A judge that answers each push with the next of `answers` (then accepts). */
  function answering(answers: Result<ServerProgress>[]) {
    const fake = judge(true, "k1.x");
    const accept = fake.mergeProgress;
    fake.mergeProgress = async (copy) => {
      const answer = answers.shift();
      if (answer === undefined) return accept(copy);
      fake.sent.push(copy);
      return answer;
    };
    return fake;
  }

  it("pushes a change the judge refused for now again after its Retry-After, and not before", async () => {
    const fake = answering([{ ok: false, status: 429, message: "too many progress writes", retryAfter: 30 }]);
    syncProgress(fake, LESSONS, async () => ["graph-walk"], 10);
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.sent.length).toBe(1); // refused
    progress.setCell("01-a", "walk", "matched"); // a change meanwhile waits for the Retry-After too
    await vi.advanceTimersByTimeAsync(29_000);
    expect(fake.sent.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(fake.sent.length).toBe(2);
    expect(fake.sent[1].lessons["01-a"].cells).toEqual({ walk: "matched" });
    expect(progress.hintsShown("graph-walk")).toBe(4); // the retry was answered and merged
  });

  it("tries an unreachable judge again, waiting longer each time", async () => {
    const gone = { ok: false as const, message: "Failed to fetch", unreachable: true };
    const fake = answering([gone, gone, gone]);
    syncProgress(fake, LESSONS, async () => ["graph-walk"], 10);
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.sent.length).toBe(1);
    await vi.advanceTimersByTimeAsync(RETRY_MS);
    expect(fake.sent.length).toBe(2);
    await vi.advanceTimersByTimeAsync(RETRY_MS * 2 - 100);
    expect(fake.sent.length).toBe(2); // the second retry waits twice as long
    await vi.advanceTimersByTimeAsync(200);
    expect(fake.sent.length).toBe(3);
    await vi.advanceTimersByTimeAsync(RETRY_MS * 4);
    expect(fake.sent.length).toBe(4); // answered at last
    expect(progress.hintsShown("graph-walk")).toBe(4);
  });

  it("does not retry a copy the judge refused outright", async () => {
    const fake = answering([{ ok: false, status: 422, message: "no lesson 09-x here" }]);
    syncProgress(fake, LESSONS, async () => ["graph-walk"], 10);
    await vi.advanceTimersByTimeAsync(MAX_RETRY_MS * 2);
    expect(fake.sent.length).toBe(1);
    progress.setRead("01-a", true); // the next change is pushed as usual
    await vi.advanceTimersByTimeAsync(20);
    expect(fake.sent.length).toBe(2);
  });
});
