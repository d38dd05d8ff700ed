// The page: header (Run, Stop, Share, status, language, theme), a sidebar (examples,
// exercises), the editor, and the output tabs (console, graph, trace, plot, memory). startApp
// only wires the parts in ./app/; it never touches Python itself.

import { ContextBar } from "./app/context";
import { ExamplesList } from "./app/examples";
import { exercisesView } from "./app/exercises";
import { Header } from "./app/header";
import { globalKeys } from "./app/keys";
import { layOut } from "./app/page";
import { Runner } from "./app/runner";
import { restoreSession } from "./app/session";
import { currentState, OpenedLink, SharePanel } from "./app/sharing";
import { StatusView } from "./app/status";
import { ThemeToggle } from "./app/theme";
import { resolveUrls } from "./config";
import { ConsoleView } from "./console/console";
import { CodeEditor } from "./editor/editor";
import { DEFAULT_CODE, type Example } from "./examples";
import { ExerciseSource } from "./exercises/api";
import { outputPanels } from "./panels";
import { OutputPanels } from "./panels/outputs";
import { h } from "./ui/dom";
import { bind, onLang, t } from "./ui/i18n";
import { storage } from "./ui/storage";
import { PyodideClient } from "./worker/client";
import { connectStepper, runSwitches } from "./stepper/link";
import { learnView } from "./learn/wire";

/** The page's first Tab stop, seen only when focused: straight to the editor. */
function skipLink(focusEditor: () => void): HTMLAnchorElement {
  const link = h("a", { class: "skip-link", href: "#code" });
  bind(link, "skip.editor");
  link.addEventListener("click", (e) => {
    e.preventDefault(); // no #code in the address: a hash there is a share link's
    focusEditor();
  });
  return link;
}

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
  const theme = new ThemeToggle((dark) => editor.setDark(dark));
  const link = new OpenedLink();
  const workspace = h("main", { class: "workspace" });
  const run = () => void runner.run();
  const doc = link.code ?? storage.playground() ?? DEFAULT_CODE;
  const editor = new CodeEditor({ doc, dark: theme.dark, onRun: run, onChange: (code) => context.save(code) });
  const context = new ContextBar(editor, workspace, () => exercises.closeExercise());
  const consoleView = new ConsoleView((line) => editor.goToLine(line));
  const outputs = new OutputPanels(outputPanels(consoleView));
  const status = new StatusView(() => client.state);
  const sharePanel = new SharePanel();
  const share = () => void sharePanel.show(currentState(editor.code, outputs, context.current, examples.loaded));
  const header = new Header({ run, stop: () => client.stop(), share, status: status.element, themeButton: theme.button });
  const runner = new Runner({ client, editor, console: consoleView, outputs, header, status, link });
  const leaveExercise = () => context.current.kind !== "playground" && exercises.closeExercise();
  const opened = (example: Example) => {
    sharePanel.hide();
    context.showExample(example.title);
  };
  const examples = new ExamplesList({ editor, console: consoleView, leaveExercise, opened });
  // Another exercise (or back to the playground): the last program's drawings and the share
  // panel's link were about other code.
  const navigated = () => {
    sharePanel.hide();
    outputs.clearDrawings();
  };
  const exercises = exercisesView({ source, client, editor, console: consoleView, context, runner, navigated });
  const learn = learnView({ client, editor, console: consoleView, runner, source, exercises, sideTabs: () => sideTabs, leaveExercise });
  const sideTabs = layOut({
    workspace,
    examples: examples.element,
    exercises: exercises.element,
    learn: learn.element,
    contextBar: context.element,
    editor: editor.element,
    outputs: outputs.tabs,
    clearConsole: () => consoleView.clear(),
  });
  sideTabs.onSelect((id) => {
    sharePanel.hide();
    if (id === "learn") learn.render(); // exercise statuses may have changed
  });
  root.append(skipLink(() => editor.focus()), header.element, sharePanel.element, workspace);
  context.render();

  globalKeys({ run, sharePanel });
  const renderText = () => {
    [examples, context, theme, status].forEach((part) => part.render());
    [outputs, exercises, learn].forEach((part) => part.refreshText());
    document.title = t("app.title");
  };
  onLang(renderText);
  document.title = t("app.title");
  if (!globalThis.crossOriginIsolated) consoleView.note(t("status.noisolation"), "warn");
  status.render();
  const restored = restoreSession({ link, source, exercises, examples, sideTabs, context, editor, console: consoleView });
  connectStepper(editor, run);
  if (link.state?.forward === 1) runSwitches.recordOnce = true; // the link lands on a forward step
  if (link.wantsRun) void restored.finally(() => ready.then(run));
  return ready;
}
