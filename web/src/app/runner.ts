// The run loop: the editor's code to the worker, what it prints to the console, what it draws to
// the output panels, and how the run ended (finished, failed at a line, stopped).

import type { ConsoleView } from "../console/console";
import type { CodeEditor } from "../editor/editor";
import type { OutputPanels } from "../panels/outputs";
import { errorNotes, runSwitches } from "../stepper/link";
import { formatSeconds } from "../ui/dom";
import { t } from "../ui/i18n";
import type { ClientEvent, PyodideClient, TestsOutcome } from "../worker/client";
import type { PyError, StartKind, TestRunRequest } from "../worker/protocol";
import type { Header } from "./header";
import type { OpenedLink } from "./sharing";
import type { StatusView } from "./status";

export interface RunnerParts {
  client: PyodideClient;
  editor: CodeEditor;
  console: ConsoleView;
  outputs: OutputPanels;
  header: Header;
  status: StatusView;
  link: OpenedLink;
}

export class Runner {
  private replacedDuringRun = false;
  private startSaid: StartKind | null = null;

  constructor(private readonly p: RunnerParts) {
    p.client.on((event) => this.onEvent(event));
  }

  get ready(): boolean {
    return this.p.client.state.phase === "ready";
  }

  async run(): Promise<void> {
    const { client, editor, console, outputs } = this.p;
    if (!this.ready) return;
    outputs.reset();
    editor.markLine(null);
    editor.setNotes([]);
    this.replacedDuringRun = false;
    this.setRunning(true);
    const outcome = await client.run(editor.code, runSwitches.take());
    console.flush();
    const seconds = formatSeconds(outcome.durationMs);
    if (outcome.ok) {
      if (outcome.value !== null) console.note(outcome.value, "info");
      console.note(t("console.finished", { seconds }), "ok");
    } else this.failed(outcome.error, seconds);
    outputs.finish(!outcome.ok);
    const opened = this.p.link.takeTab(outcome.ok);
    if (opened) outputs.open(opened.tab, opened.place);
    this.setRunning(false);
  }

  /** An exercise's public tests, in the worker, the console showing what they print. */
  async runTests(request: TestRunRequest): Promise<TestsOutcome> {
    this.setRunning(true);
    const outcome = await this.p.client.runTests(request);
    this.setRunning(false);
    this.p.console.flush();
    return outcome;
  }

  private failed(error: PyError, seconds: string): void {
    const { console, editor } = this.p;
    if (error.type === "KeyboardInterrupt") {
      // Stop says one thing: where it stopped, or (said already) that Python was restarted.
      if (!this.replacedDuringRun) {
        console.note(error.lineno ? t("console.stopped.at", { line: error.lineno }) : t("console.stopped"), "warn");
      }
      return;
    }
    console.traceback(error);
    editor.markLine(error.lineno);
    editor.setNotes(errorNotes(error)); // the in-place error's saved, modified and backward lines
    console.note(t("console.failed", { type: error.type, seconds }), "error");
  }

  private setRunning(running: boolean): void {
    this.p.header.setRunning(running, this.ready);
  }

  private onEvent(event: ClientEvent): void {
    const { header, console, outputs, status } = this.p;
    switch (event.type) {
      case "state":
        status.render(event.state);
        if (event.state.phase === "ready" && event.state.start !== this.startSaid) {
          this.startSaid = event.state.start; // once per start of Python, not once per run
          if (event.state.start.kind === "normal") console.note(t("console.normalstart", { reason: event.state.start.reason }), "warn");
        }
        header.runButton.disabled = event.state.phase !== "ready";
        header.stopButton.disabled = event.state.phase !== "running";
        break;
      case "stdout":
      case "stderr":
        console.write(event.type, event.text);
        break;
      case "display":
        outputs.show(event.display);
        break;
      case "worker_replaced":
        this.replacedDuringRun = true;
        console.note(t(REPLACED[event.reason]), "warn");
        break;
    }
  }
}

const REPLACED = {
  stop_timeout: "console.replaced",
  crashed: "console.crashed",
  stop_without_isolation: "console.restarted",
} as const;
