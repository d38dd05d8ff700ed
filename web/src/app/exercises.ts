// The sidebar's exercises, wired to the editor, the context bar and the run loop.

import type { ConsoleView } from "../console/console";
import type { CodeEditor } from "../editor/editor";
import { DEFAULT_CODE } from "../examples";
import type { ExerciseDetail, ExerciseSource } from "../exercises/api";
import { ExercisesView } from "../exercises/view";
import { storage } from "../ui/storage";
import type { PyodideClient } from "../worker/client";
import type { ContextBar } from "./context";
import type { Runner } from "./runner";

/** Where the harness package is written inside Pyodide before an exercise's tests run. */
const HARNESS_ROOT = "/home/pyodide/kael_exercises";

export interface ExerciseParts {
  source: ExerciseSource;
  client: PyodideClient;
  editor: CodeEditor;
  console: ConsoleView;
  context: ContextBar;
  runner: Runner;
  /** The editor now holds another exercise's (or the playground's) code. */
  navigated: () => void;
}

export function exercisesView(p: ExerciseParts): ExercisesView {
  const { source, client, editor, context } = p;
  return new ExercisesView(source, {
    open: (detail: ExerciseDetail) => {
      storage.setExercise(detail.id);
      const titles = { en: detail.titles?.en ?? detail.title, zh: detail.titles?.zh };
      context.set({ kind: "exercise", id: detail.id, titles }, storage.draft(detail.id) ?? detail.starter);
      p.navigated();
    },
    code: () => editor.code,
    runTests: async (detail) => {
      p.console.clear();
      editor.markLine(null);
      const files = await source.harnessFiles(HARNESS_ROOT);
      if (!files.ok) return { report: null, error: files.message };
      const outcome = await p.runner.runTests({
        exercise_id: detail.id,
        code: editor.code,
        tests_source: detail.public_tests,
        module: detail.module,
        solution_file: detail.solution_file,
        test_file: detail.test_file,
        files: files.value,
      });
      return { report: outcome.report, error: outcome.error ? outcome.error.traceback : null };
    },
    canRun: () => client.state.phase === "ready",
    onRunnable: (listener) => client.on((e) => e.type === "state" && listener()),
    closed: () => {
      storage.setExercise(null);
      if (context.current.kind !== "exercise") return;
      context.set({ kind: "playground" }, storage.playground() ?? DEFAULT_CODE);
      p.navigated();
    },
    showLine: (line) => editor.goToLine(line),
    markLine: (line) => editor.markLine(line),
    restore: (code) => editor.replace(code),
  });
}
