// What the page opens with: a share link's exercise or example, else the exercise the learner
// had open last time (when the Exercises tab was theirs).

import type { ConsoleView } from "../console/console";
import type { CodeEditor } from "../editor/editor";
import type { ExerciseSource } from "../exercises/api";
import type { ExercisesView } from "../exercises/view";
import { t } from "../ui/i18n";
import { storage } from "../ui/storage";
import type { Tabs } from "../ui/tabs";
import type { ContextBar } from "./context";
import type { ExamplesList } from "./examples";
import { keepDraft, type OpenedLink } from "./sharing";

export interface SessionParts {
  link: OpenedLink;
  source: ExerciseSource;
  exercises: ExercisesView;
  examples: ExamplesList;
  sideTabs: Tabs;
  context: ContextBar;
  editor: CodeEditor;
  console: ConsoleView;
}

/** Resolves once the exercise to open (if any) is open. */
export async function restoreSession(p: SessionParts): Promise<void> {
  const shared = p.link.state;
  if (storage.mode() === "exercises") p.sideTabs.select("exercises");
  if (shared) p.console.note(t("share.loaded"), "info");
  p.examples.mark(shared?.example);
  await p.source.probeServer();
  await p.exercises.load();
  const lastExercise = storage.exercise();
  if (shared?.exercise) {
    // A shared exercise: open it, then the shared code replaces the draft (kept, and Ctrl+Z).
    p.sideTabs.select("exercises");
    await p.exercises.openById(shared.exercise);
    if (p.context.current.kind === "exercise") {
      keepDraft(shared.exercise, storage.draft(shared.exercise), shared.code); // offered back by the context bar
      p.editor.replace(shared.code);
      p.context.render();
    }
  } else if (!shared && lastExercise && storage.mode() === "exercises") await p.exercises.openById(lastExercise);
}
