// The run's progress bar, above the output tabs so that it shows whichever tab is open: a row
// for the program's playground.progress(value, total, label) and one for the kael operation
// running now (kael.utils.progress: a large matmul, its rows). Both say what they count; the
// bar goes when the run ends, stops or fails (OutputPanels.finish and reset).

import { h } from "../ui/dom";
import { currentLang, type Localized } from "../ui/i18n";
import type { Display } from "../worker/protocol";
import "./plot.css";

export interface ProgressReport {
  value: number;
  total: number;
  label?: string;
  source?: "kael"; // absent: the program's own playground.progress
}

export function isProgressReport(d: Display): d is Display & ProgressReport {
  return typeof d.value === "number" && typeof d.total === "number" && Number.isFinite(d.value) && Number.isFinite(d.total);
}

const TEXT: Record<"program" | "kael" | "name", Localized> = {
  program: { en: "progress", zh: "进度" },
  kael: { en: "kael", zh: "kael" },
  name: { en: "Progress of the run", zh: "运行进度" },
};

/** "label 5/14 (36%)": what is counted, how far. */
export function progressText(r: ProgressReport, lang: "en" | "zh" = "en"): string {
  const label = r.label || TEXT.program[lang];
  const prefix = r.source === "kael" ? `${TEXT.kael[lang]}: ` : "";
  const share = r.total > 0 ? ` (${Math.min(100, Math.floor((100 * r.value) / r.total))}%)` : "";
  return `${prefix}${label} ${Math.round(r.value)}/${Math.round(r.total)}${share}`;
}

class Row {
  readonly bar = h("progress", { class: "run-progress-bar", max: "1", value: "0" });
  readonly text = h("span", { class: "run-progress-text" });
  readonly element: HTMLElement;

  constructor(source: string) {
    this.element = h("div", { class: "run-progress-row", "data-source": source, hidden: "" }, this.text, this.bar);
  }

  set(r: ProgressReport | null): void {
    this.element.hidden = r === null;
    if (!r) return;
    const text = progressText(r, currentLang());
    this.bar.max = r.total > 0 ? r.total : 1;
    this.bar.value = Math.min(r.value, this.bar.max);
    this.bar.setAttribute("aria-label", text);
    this.text.textContent = text;
  }
}

export class ProgressBar {
  private readonly program = new Row("program");
  private readonly kael = new Row("kael");
  readonly element = h("div", { class: "run-progress", "data-testid": "run-progress", role: "group", hidden: "" }, this.program.element, this.kael.element);
  private latest: { program: ProgressReport | null; kael: ProgressReport | null } = { program: null, kael: null };
  private frame = 0;

  constructor() {
    this.element.setAttribute("aria-label", TEXT.name[currentLang()]);
  }

  update(r: ProgressReport): void {
    if (r.source === "kael") this.latest.kael = r.value >= r.total ? null : r; // an operation's last report ends its row
    else this.latest.program = r;
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  /** The run ended (or a new one starts): no bar. */
  clear(): void {
    this.latest = { program: null, kael: null };
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.draw();
  }

  refreshText(): void {
    this.element.setAttribute("aria-label", TEXT.name[currentLang()]);
    this.draw();
  }

  private draw(): void {
    this.frame = 0;
    this.program.set(this.latest.program);
    this.kael.set(this.latest.kael);
    this.element.hidden = !this.latest.program && !this.latest.kael;
  }
}
