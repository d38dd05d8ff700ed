// The page: header (Run, Stop, Share, status, language, theme), a sidebar (examples,
// exercises), the editor, and the output tabs (console, graph, trace, plot). It wires views to
// the worker client and never touches Python itself.

import { resolveUrls } from "./config";
import { ConsoleView } from "./console/console";
import { CodeEditor } from "./editor/editor";
import { DEFAULT_CODE, EXAMPLES, type Example } from "./examples";
import { ExerciseSource, type ExerciseDetail } from "./exercises/api";
import { ExercisesView } from "./exercises/view";
import { outputPanels } from "./panels";
import { OutputPanels } from "./panels/outputs";
import type { PanelPlace } from "./panels/panel";
import { clear, formatSeconds, h } from "./ui/dom";
import { bind, currentLang, onLang, setLang, t } from "./ui/i18n";
import { shareUrl, stateFromHash } from "./ui/share";
import { splitter } from "./ui/splitter";
import { storage } from "./ui/storage";
import { Tabs } from "./ui/tabs";
import { applyTheme, initialTheme, type Theme } from "./ui/theme";
import { PyodideClient, type RuntimeState } from "./worker/client";
import type { Stage } from "./worker/protocol";

const HARNESS_ROOT = "/home/pyodide/kael_exercises";
const STAGES: Stage[] = ["runtime", "stdlib", "kael"];

type Context = { kind: "playground" } | { kind: "exercise"; id: string; titles: { en: string; zh?: string } };

/** Builds the page and starts Python; resolves when Python is first ready. */
export function startApp(root: HTMLElement): Promise<void> {
  const urls = resolveUrls();
  const client = new PyodideClient(urls);
  // Python loads first, the page is built while it does (the worker's messages arrive in later
  // tasks, after every listener below is in place).
  const ready = new Promise<void>((resolve) => {
    const off = client.on((event) => event.type === "state" && event.state.phase === "ready" && (off(), resolve()));
  });
  client.start();
  const source = new ExerciseSource(urls);
  let theme: Theme = initialTheme();
  applyTheme(theme);

  // ---------------------------------------------------------------- editor and context
  let context: Context = { kind: "playground" };
  const sharedState = stateFromHash();
  const shared = sharedState?.code ?? null;
  let pendingTab = sharedState?.tab ?? null; // the shared link's tab, shown after the first run
  // The shared link's trace step: the page runs the code itself once Python is ready, then lands
  // on that step (as a Python Tutor permalink does).
  let pendingPlace: PanelPlace | null =
    sharedState?.step !== undefined ? { step: sharedState.step, pass: sharedState.pass } : null;
  const editor = new CodeEditor({
    doc: shared ?? storage.playground() ?? DEFAULT_CODE,
    dark: theme === "dark",
    onRun: () => void run(),
    onChange: (code) => {
      if (context.kind === "playground") storage.setPlayground(code);
      else storage.setDraft(context.id, code);
    },
  });
  if (shared !== null) {
    if (!sharedState?.exercise) storage.setPlayground(shared);
    history.replaceState(null, "", location.pathname + location.search); // a reload keeps edits
  }
  const contextLabel = h("span", { class: "context-label" });
  const contextBack = h("button", { type: "button", class: "link", hidden: true }, "");
  const renderContext = () => {
    contextLabel.textContent =
      context.kind === "playground"
        ? t("app.title")
        : `${t("nav.exercises")} · ${(currentLang() === "zh" ? context.titles.zh : undefined) ?? context.titles.en}`;
    contextBack.hidden = context.kind === "playground";
    contextBack.textContent = `← ${t("app.title")}`;
  };
  const setContext = (next: Context, code: string) => {
    context = next;
    editor.setCode(code);
    editor.markLine(null);
    workspace.classList.toggle("exercise-open", next.kind === "exercise");
    renderContext();
  };
  const workspace = h("main", { class: "workspace" });
  contextBack.addEventListener("click", () => exercisesView.closeExercise());

  // ---------------------------------------------------------------- output views
  const consoleView = new ConsoleView((line) => editor.goToLine(line));
  const outputs = new OutputPanels(outputPanels(consoleView));
  const clearButton = h("button", { type: "button", class: "link clear", onclick: () => consoleView.clear() });
  bind(clearButton, "action.clear");
  bind(clearButton, "action.clear.title", "title");

  // ---------------------------------------------------------------- header
  const runButton = h("button", { type: "button", class: "primary run", disabled: true, onclick: () => void run() });
  const runLabel = h("span", {});
  bind(runLabel, "action.run");
  runButton.append(h("span", { "aria-hidden": "true", class: "glyph" }, "▶ "), runLabel);
  bind(runButton, "action.run.title", "title");
  const stopButton = h("button", { type: "button", class: "stop", disabled: true, onclick: () => client.stop() });
  const stopLabel = h("span", {});
  bind(stopLabel, "action.stop");
  stopButton.append(h("span", { "aria-hidden": "true", class: "glyph" }, "■ "), stopLabel);
  bind(stopButton, "action.stop.title", "title");
  const shareButton = h("button", { type: "button", class: "share", onclick: () => void share() });
  bind(shareButton, "action.share");
  bind(shareButton, "action.share.title", "title");
  const langButton = h("button", {
    type: "button",
    class: "pref",
    onclick: () => setLang(currentLang() === "en" ? "zh" : "en"),
  });
  bind(langButton, "action.lang");
  bind(langButton, "action.lang.title", "aria-label");
  bind(langButton, "action.lang.title", "title");
  const themeButton = h("button", {
    type: "button",
    class: "pref",
    onclick: () => {
      theme = theme === "dark" ? "light" : "dark";
      applyTheme(theme);
      editor.setDark(theme === "dark");
      renderTheme();
    },
  });
  const renderTheme = () => {
    themeButton.textContent = theme === "dark" ? "☀" : "☾";
    const label = theme === "dark" ? t("action.theme.light") : t("action.theme.dark");
    themeButton.setAttribute("aria-label", label);
    themeButton.title = label;
  };
  renderTheme();

  const statusText = h("span", { class: "status-text", "data-testid": "status" });
  const statusStages = h("span", { class: "stages" });
  const status = h("div", { class: "status", role: "status", "aria-live": "polite" }, statusText, statusStages);

  const sharePanel = h("div", { class: "share-panel", hidden: true });

  const title = h("h1", {});
  bind(title, "app.title");
  const tagline = h("span", { class: "tagline" });
  bind(tagline, "app.tagline");
  const header = h(
    "header",
    { class: "topbar" },
    h("div", { class: "brand" }, h("span", { class: "logo", "aria-hidden": "true" }, "∂"), title, tagline),
    h("div", { class: "run-controls" }, runButton, stopButton, shareButton),
    status,
    h("div", { class: "prefs" }, langButton, themeButton),
  );

  // ---------------------------------------------------------------- sidebar
  const examplesList = h("div", { class: "examples" });
  let loadedExample: string | null = null;
  const renderExamples = () => {
    clear(examplesList);
    const lang = currentLang();
    examplesList.append(
      h("h2", {}, t("examples.title")),
      h("p", { class: "muted" }, t("examples.intro")),
      h(
        "ul",
        { class: "example-list" },
        EXAMPLES.map((ex) =>
          h(
            "li",
            {},
            h(
              "button",
              {
                type: "button",
                class: "example-item",
                "data-example": ex.id,
                "aria-current": loadedExample === ex.id ? "true" : undefined,
                "aria-describedby": `example-${ex.id}`,
                onclick: () => openExample(ex),
              },
              h("span", { class: "example-title" }, ex.title[lang]),
              h("span", { class: "example-summary", id: `example-${ex.id}` }, ex.summary[lang]),
            ),
          ),
        ),
      ),
    );
  };
  renderExamples();

  const exercisesView = new ExercisesView(source, {
    open: (detail: ExerciseDetail) => {
      storage.setExercise(detail.id);
      const titles = { en: detail.titles?.en ?? detail.title, zh: detail.titles?.zh };
      setContext({ kind: "exercise", id: detail.id, titles }, storage.draft(detail.id) ?? detail.starter);
    },
    code: () => editor.code,
    runTests: async (detail) => {
      consoleView.clear();
      editor.markLine(null);
      const files = await source.harnessFiles(HARNESS_ROOT);
      if (!files.ok) return { report: null, error: files.message };
      setRunning(true);
      const outcome = await client.runTests({
        exercise_id: detail.id,
        code: editor.code,
        tests_source: detail.public_tests,
        module: detail.module,
        solution_file: detail.solution_file,
        test_file: detail.test_file,
        files: files.value,
      });
      setRunning(false);
      consoleView.flush();
      return { report: outcome.report, error: outcome.error ? outcome.error.traceback : null };
    },
    canRun: () => client.state.phase === "ready",
    onRunnable: (listener) => client.on((e) => e.type === "state" && listener()),
    closed: () => {
      storage.setExercise(null);
      if (context.kind === "exercise") setContext({ kind: "playground" }, storage.playground() ?? DEFAULT_CODE);
    },
    showLine: (line) => editor.goToLine(line),
    markLine: (line) => editor.markLine(line),
    restore: (code) => editor.replace(code),
  });

  const sideTabs = new Tabs("side", "nav.examples", [
    { id: "examples", label: "nav.examples", panel: examplesList },
    { id: "exercises", label: "nav.exercises", panel: exercisesView.element },
  ]);
  sideTabs.onSelect((id) => storage.setMode(id));

  // ---------------------------------------------------------------- page
  const sidebar = h("aside", { class: "sidebar" }, sideTabs.list, sideTabs.panels);
  const divider = splitter({
    container: workspace,
    variable: "--side-width",
    edge: () => workspace.getBoundingClientRect().left,
    min: 240,
    max: () => workspace.clientWidth - 480,
    storageKey: "kael.sideWidth",
  });
  bind(divider, "split.label", "aria-label");
  sidebar.append(divider);
  workspace.append(
    sidebar,
      h(
        "section",
        { class: "editor-pane", "aria-label": "editor" },
        h("div", { class: "context-bar" }, contextLabel, contextBack),
        editor.element,
      ),
    h("section", { class: "output-pane" }, h("div", { class: "output-head" }, outputs.tabs.list, clearButton), outputs.tabs.panels),
  );
  root.append(header, sharePanel, workspace);
  renderContext();

  // ---------------------------------------------------------------- runtime status
  let ticker: ReturnType<typeof setInterval> | null = null;
  const renderStatus = (state: RuntimeState) => {
    status.dataset.phase = state.phase;
    clear(statusStages);
    if (state.phase === "loading") {
      const elapsed = performance.now() - state.startedAt;
      statusText.textContent = `${t("status.loading")} ${t(`stage.${state.stage}`)}… ${formatSeconds(elapsed)}`;
      for (const stage of STAGES) {
        const s = state.stages[stage];
        const done = s?.end !== undefined;
        const text = `${t(`stage.${stage}`)}${done ? ` ${formatSeconds(s!.end! - s!.start)}` : ""}`;
        statusStages.append(h("span", { class: `stage ${done ? "done" : s ? "active" : "waiting"}` }, text));
      }
      if (!ticker) ticker = setInterval(() => renderStatus(client.state), 100);
      return;
    }
    if (ticker) clearInterval(ticker);
    ticker = null;
    if (state.phase === "ready") {
      statusText.textContent = t("status.ready");
      statusText.title = t("status.ready.detail", { ...state.versions, seconds: formatSeconds(state.loadMs) });
      const breakdown = STAGES.map((stage) => {
        const s = state.stages[stage];
        return `${t(`stage.${stage}`)} ${s?.end !== undefined ? formatSeconds(s.end - s.start) : "?"}`;
      }).join(" · ");
      statusStages.append(
        h("span", { class: "stage done", "data-testid": "load-time", title: breakdown, "data-stages": breakdown }, formatSeconds(state.loadMs)),
      );
    } else if (state.phase === "running") {
      statusText.textContent = t("status.running");
    } else {
      const lines = state.message.trim().split("\n");
      statusText.textContent = `${t("status.failed")}: ${lines[lines.length - 1].slice(0, 200)}`;
      statusText.title = state.message;
    }
  };

  const setRunning = (running: boolean) => {
    runButton.disabled = running || client.state.phase !== "ready";
    stopButton.disabled = !running;
  };

  client.on((event) => {
    switch (event.type) {
      case "state":
        renderStatus(event.state);
        runButton.disabled = event.state.phase !== "ready";
        stopButton.disabled = event.state.phase !== "running";
        break;
      case "stdout":
      case "stderr":
        consoleView.write(event.type, event.text);
        break;
      case "display":
        outputs.show(event.display);
        break;
      case "worker_replaced":
        replacedDuringRun = true;
        consoleView.note(
          event.reason === "stop_timeout"
            ? t("console.replaced")
            : event.reason === "crashed"
              ? t("console.crashed")
              : t("console.restarted"),
          "warn",
        );
        break;
    }
  });

  // ---------------------------------------------------------------- running code
  let replacedDuringRun = false;
  async function run(): Promise<void> {
    if (client.state.phase !== "ready") return;
    outputs.reset();
    editor.markLine(null);
    replacedDuringRun = false;
    setRunning(true);
    const outcome = await client.run(editor.code);
    consoleView.flush();
    const seconds = formatSeconds(outcome.durationMs);
    if (outcome.ok) {
      if (outcome.value !== null) consoleView.note(outcome.value, "info");
      consoleView.note(t("console.finished", { seconds }), "ok");
    } else {
      const error = outcome.error;
      if (error.type === "KeyboardInterrupt") {
        // Stop says one thing: where it stopped, or (said already) that Python was restarted.
        if (!replacedDuringRun) {
          consoleView.note(error.lineno ? t("console.stopped.at", { line: error.lineno }) : t("console.stopped"), "warn");
        }
      } else {
        consoleView.traceback(error);
        editor.markLine(error.lineno);
        consoleView.note(t("console.failed", { type: error.type, seconds }), "error");
      }
    }
    outputs.finish(!outcome.ok);
    if (pendingTab && outcome.ok) outputs.open(pendingTab, pendingPlace);
    pendingTab = null;
    pendingPlace = null;
    setRunning(false);
  }

  /** The example's code replaces the editor's as one edit (Ctrl+Z undoes it), and says so. */
  function openExample(example: Example): void {
    if (context.kind !== "playground") exercisesView.closeExercise();
    editor.replace(example.code);
    editor.markLine(null);
    loadedExample = example.id;
    renderExamples();
    consoleView.note(t("examples.loaded", { title: example.title[currentLang()] }), "info");
    editor.focus();
  }

  async function share(): Promise<void> {
    const place = outputs.panel(outputs.tabs.active)?.place?.() ?? null;
    const url = shareUrl(
      {
        code: editor.code,
        tab: outputs.tabs.active,
        step: place?.step,
        pass: place?.pass,
        example: context.kind === "playground" ? (loadedExample ?? undefined) : undefined,
        exercise: context.kind === "exercise" ? context.id : undefined,
      },
      location.origin + location.pathname,
    );
    // The link shows at once (a second Share never leaves the last link on view while the
    // clipboard answers); the note says "copied" once the clipboard took it.
    clear(sharePanel);
    const note = h("span", {}, t("share.ready"));
    const input = h("input", { type: "text", readonly: true, value: url, class: "share-url", "aria-label": t("share.label") });
    const close = h("button", { type: "button", class: "link", onclick: () => (sharePanel.hidden = true) }, t("action.close"));
    sharePanel.append(note, input, close);
    sharePanel.hidden = false;
    input.select();
    input.focus();
    try {
      await navigator.clipboard.writeText(url);
      if (input.isConnected) note.textContent = t("share.copied");
    } catch {
      // not allowed here: the link is selected for the learner to copy
    }
  }

  // ---------------------------------------------------------------- global keys, language
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "Enter" && !(e.target as HTMLElement).closest(".cm-editor")) {
      e.preventDefault();
      void run();
    }
    if (e.key === "Escape" && !sharePanel.hidden) sharePanel.hidden = true;
  });
  onLang(() => {
    renderExamples();
    renderContext();
    renderTheme();
    renderStatus(client.state);
    outputs.refreshText();
    exercisesView.refreshText();
    document.title = t("app.title");
  });
  document.title = t("app.title");

  // ---------------------------------------------------------------- start
  if (!globalThis.crossOriginIsolated) consoleView.note(t("status.noisolation"), "warn");
  renderStatus(client.state);
  const opened = (async () => {
    await source.probeServer();
    await exercisesView.load();
    const lastExercise = storage.exercise();
    if (sharedState?.exercise) {
      // A shared exercise: open it, then the shared code replaces the draft (Ctrl+Z brings it back).
      sideTabs.select("exercises");
      await exercisesView.openById(sharedState.exercise);
      if ((context as Context).kind === "exercise") editor.replace(sharedState.code);
    } else if (shared === null && lastExercise && storage.mode() === "exercises") await exercisesView.openById(lastExercise);
  })();
  if (pendingPlace) void opened.finally(() => ready.then(run));
  if (storage.mode() === "exercises") sideTabs.select("exercises");
  if (shared !== null) consoleView.note(t("share.loaded"), "info");
  if (sharedState?.example && EXAMPLES.some((ex) => ex.id === sharedState.example)) {
    loadedExample = sharedState.example;
    renderExamples();
  }
  return ready;
}
