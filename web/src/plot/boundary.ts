// The decision boundary of a 2-D classifier (playground.boundary, display kind "boundary"): the
// class the model predicts in each cell of a grid over the data's box, and the data on it.

import { clear, s } from "../ui/dom";

export interface BoundaryData {
  box: [number, number, number, number]; // x0, x1, y0, y1
  grid: number; // cells a side; classes[j * grid + i] is cell i from the left, j from the bottom
  classes: number[];
  points: [number, number, number | null][]; // x, y, the point's class (null: none given)
  steps: number; // optimizer steps taken when it was drawn
  final: boolean; // drawn when the run ended
}

export function isBoundary(data: unknown): data is BoundaryData {
  const d = data as BoundaryData | null;
  return (
    !!d && Array.isArray(d.box) && d.box.length === 4 && d.box.every((v) => typeof v === "number") &&
    Number.isInteger(d.grid) && d.grid > 0 && Array.isArray(d.classes) && d.classes.length === d.grid * d.grid &&
    Array.isArray(d.points) && typeof d.steps === "number"
  );
}

const SIZE = 300;

export class BoundaryView {
  readonly svg = s("svg", { class: "boundary-svg", viewBox: `0 0 ${SIZE} ${SIZE}`, role: "img", "data-testid": "boundary" });
  private pending: BoundaryData | null = null;
  private frame = 0;

  reset(): void {
    this.pending = null;
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    clear(this.svg);
    delete this.svg.dataset.steps;
  }

  show(data: BoundaryData): void {
    this.pending = data;
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  private draw(): void {
    this.frame = 0;
    const d = this.pending;
    if (!d) return;
    clear(this.svg);
    const [x0, x1, y0, y1] = d.box;
    const n = d.grid;
    const cell = SIZE / n;
    const px = (x: number) => ((x - x0) / (x1 - x0)) * SIZE;
    const py = (y: number) => SIZE - ((y - y0) / (y1 - y0)) * SIZE;
    const cells = s("g", { class: "boundary-cells" });
    for (let j = 0; j < n; j++) {
      for (let i = 0; i < n; i++) {
        const c = d.classes[j * n + i];
        cells.append(s("rect", { x: (i * cell).toFixed(2), y: (SIZE - (j + 1) * cell).toFixed(2), width: cell + 0.3, height: cell + 0.3, class: `cls-${c % 4}` }));
      }
    }
    const dots = s("g", { class: "boundary-points" });
    for (const [x, y, c] of d.points) {
      dots.append(s("circle", { cx: px(x).toFixed(1), cy: py(y).toFixed(1), r: 3, class: c === null ? "pt" : `pt cls-${c % 4}` }));
    }
    this.svg.append(cells, dots);
    this.svg.dataset.steps = String(d.steps);
    this.svg.dataset.final = String(d.final);
  }
}
