// The loss per optimizer step, as playground.py's watch sends it (display kind "loss"): batches
// of new points per optimizer, each optimizer a series. Pure data, no DOM (losses.test.ts).

export interface LossBatch {
  runs: { id: number; name: string; points: [number, number | null][] }[];
}

export function isLossBatch(data: unknown): data is LossBatch {
  const runs = (data as LossBatch | null)?.runs;
  return (
    Array.isArray(runs) &&
    runs.every((r) => typeof r?.id === "number" && typeof r.name === "string" && Array.isArray(r.points) &&
      r.points.every((p) => Array.isArray(p) && typeof p[0] === "number" && (typeof p[1] === "number" || p[1] === null)))
  );
}

/**
 * A series' name: "loss" while one optimizer steps; with several, each says which it is
 * ("loss (Adam 1)", "loss (SGD 2)": class and the order it first stepped in).
 */
export function seriesName(run: { id: number; name: string }, optimizers: number): string {
  return optimizers <= 1 ? "loss" : `loss (${run.name} ${run.id + 1})`;
}

/** The optimizers seen so far in a run, and the names their series had and have now. */
export class LossRuns {
  private readonly runs = new Map<number, string>(); // id -> optimizer class

  /** Takes a batch; returns the renames it causes (a second optimizer renames the first). */
  take(batch: LossBatch): { from: string; to: string }[] {
    const before = new Map([...this.runs].map(([id, name]) => [id, seriesName({ id, name }, this.runs.size)]));
    for (const run of batch.runs) this.runs.set(run.id, run.name);
    const renames: { from: string; to: string }[] = [];
    for (const [id, from] of before) {
      const to = seriesName({ id, name: this.runs.get(id)! }, this.runs.size);
      if (to !== from) renames.push({ from, to });
    }
    return renames;
  }

  name(id: number): string {
    return seriesName({ id, name: this.runs.get(id) ?? "?" }, this.runs.size);
  }

  clear(): void {
    this.runs.clear();
  }
}
