// The Learn tab wired to the worker (cells run there, their output captured), the editor and
// the run loop (a cell opened in the editor runs there, so the output tabs draw its graph), and
// the Exercises tab (a lesson's exercises open there).

import type { Runner } from "../app/runner";
import type { ConsoleView } from "../console/console";
import type { CodeEditor } from "../editor/editor";
import type { ExerciseSource, ExerciseSummary } from "../exercises/api";
import type { ExercisesView } from "../exercises/view";
import { t } from "../ui/i18n";
import type { Tabs } from "../ui/tabs";
import type { PyodideClient } from "../worker/client";
import { LESSONS } from "./lessons";
import { syncProgress } from "./sync";
import { LearnView } from "./view";

export interface LearnParts {
  client: PyodideClient;
  editor: CodeEditor;
  console: ConsoleView;
  runner: Runner;
  source: ExerciseSource;
  exercises: ExercisesView;
  sideTabs: () => Tabs;
  leaveExercise: () => void;
}

export function learnView(p: LearnParts): LearnView {
  const { client, editor } = p;
  let catalog: Promise<ExerciseSummary[]> | null = null;
  const exercises = () => (catalog ??= p.source.list().then((result) => (result.ok ? result.value : [])));
  const lessonCells = new Map(LESSONS.map((lesson) => [lesson.id, Object.keys(lesson.cells)]));
  const sync = syncProgress(p.source, lessonCells, async () => (await exercises()).map((e) => e.id));
  return new LearnView({
    runCell: async (code, label) => {
      p.console.clear(); // the console shows this cell's run alone, as it does an exercise's tests
      p.console.note(t("learn.cell.ran", { label }), "info");
      let output = "";
      const off = client.on((event) => {
        if (event.type === "stdout" || event.type === "stderr") output += event.text;
      });
      const outcome = await client.run(code);
      off();
      p.console.flush();
      return { output, error: outcome.ok ? null : outcome.error.traceback };
    },
    openInEditor: (code, label) => {
      p.leaveExercise();
      editor.replace(code);
      editor.markLine(null);
      p.console.note(t("learn.cell.opened", { label }), "info");
      void p.runner.run();
      // On a narrow page the panes stack: bring the editor into view.
      if (matchMedia("(max-width: 1100px)").matches) editor.element.scrollIntoView({ block: "start" });
    },
    openExercise: (id) => {
      p.sideTabs().select("exercises");
      void p.exercises.openById(id);
    },
    canRun: () => client.state.phase === "ready",
    onRunnable: (listener) => client.on((event) => event.type === "state" && listener()),
    exercises,
    judge: { probed: p.source.probed, keys: p.source, syncNow: sync.now },
  });
}
