// The runtime status in the header: Python's load stages with their times, ready, running, or why
// it failed to load.

import { clear, formatSeconds, h } from "../ui/dom";
import { t } from "../ui/i18n";
import type { RuntimeState } from "../worker/client";
import type { Stage } from "../worker/protocol";

const STAGES: Stage[] = ["runtime", "stdlib", "kael"];

export class StatusView {
  private readonly text = h("span", { class: "status-text", "data-testid": "status" });
  private readonly stages = h("span", { class: "stages" });
  readonly element = h("div", { class: "status", role: "status", "aria-live": "polite" }, this.text, this.stages);
  private ticker: ReturnType<typeof setInterval> | null = null;

  /** `state` is read again every 100 ms while Python loads (the elapsed time ticks). */
  constructor(private readonly state: () => RuntimeState) {}

  render(state: RuntimeState = this.state()): void {
    this.element.dataset.phase = state.phase;
    clear(this.stages);
    if (state.phase === "loading") {
      this.renderLoading(state);
      if (!this.ticker) this.ticker = setInterval(() => this.render(), 100);
      return;
    }
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    if (state.phase === "ready") this.renderReady(state);
    else if (state.phase === "running") this.text.textContent = t("status.running");
    else {
      const lines = state.message.trim().split("\n");
      this.text.textContent = `${t("status.failed")}: ${lines[lines.length - 1].slice(0, 200)}`;
      this.text.title = state.message;
    }
  }

  private renderLoading(state: Extract<RuntimeState, { phase: "loading" }>): void {
    const elapsed = performance.now() - state.startedAt;
    this.text.textContent = `${t("status.loading")} ${t(`stage.${state.stage}`)}… ${formatSeconds(elapsed)}`;
    for (const stage of STAGES) {
      const s = state.stages[stage];
      const done = s?.end !== undefined;
      const text = `${t(`stage.${stage}`)}${done ? ` ${formatSeconds(s!.end! - s!.start)}` : ""}`;
      this.stages.append(h("span", { class: `stage ${done ? "done" : s ? "active" : "waiting"}` }, text));
    }
  }

  private renderReady(state: Extract<RuntimeState, { phase: "ready" }>): void {
    this.text.textContent = t("status.ready");
    this.text.title = t("status.ready.detail", { ...state.versions, seconds: formatSeconds(state.loadMs) });
    const breakdown = STAGES.map((stage) => {
      const s = state.stages[stage];
      return `${t(`stage.${stage}`)} ${s?.end !== undefined ? formatSeconds(s.end - s.start) : "?"}`;
    }).join(" · ");
    this.stages.append(
      h("span", { class: "stage done", "data-testid": "load-time", title: breakdown, "data-stages": breakdown }, formatSeconds(state.loadMs)),
    );
  }
}
