// The lessons under web/lessons/ (its README), built into the page: lesson.json with the page,
// each lesson's Markdown and cells when it is first opened.

import type { Lang, Localized } from "../ui/i18n";
import { parseLesson, type LessonText } from "./parse";

export interface CellSpec {
  slow?: boolean;
  show?: string;
}

export interface Lesson {
  id: string; // the folder name, "01-recorded-graph"
  number: number;
  title: Localized;
  summary: Localized;
  exercises: string[];
  cells: Record<string, CellSpec>;
}

export interface Cell extends CellSpec {
  name: string;
  code: string;
  expected: string;
}

interface LessonJson {
  title: Localized;
  summary: Localized;
  exercises: string[];
  cells: Record<string, CellSpec>;
}

const metas = import.meta.glob<LessonJson>("../../lessons/*/lesson.json", { eager: true, import: "default" });
const texts = import.meta.glob<string>("../../lessons/*/*.md", { query: "?raw", import: "default" });
const sources = import.meta.glob<string>("../../lessons/*/cells/*", { query: "?raw", import: "default" });

const folder = (path: string) => path.split("/")[3];

export const LESSONS: Lesson[] = Object.entries(metas)
  .map(([path, meta]) => ({ id: folder(path), number: Number(folder(path).slice(0, 2)), ...meta }))
  .sort((a, b) => a.id.localeCompare(b.id));

export function lessonById(id: string): Lesson | undefined {
  return LESSONS.find((lesson) => lesson.id === id);
}

/** The lesson's text in `lang` (English when that language has none) and its cells. */
export async function loadLesson(lesson: Lesson, lang: Lang): Promise<{ text: LessonText; cells: Map<string, Cell> }> {
  const base = `../../lessons/${lesson.id}`;
  const load = texts[`${base}/${lang}.md`] ?? texts[`${base}/en.md`];
  const text = parseLesson(await load());
  const cells = new Map<string, Cell>();
  await Promise.all(
    Object.entries(lesson.cells).map(async ([name, spec]) => {
      const [code, expected] = await Promise.all([sources[`${base}/cells/${name}.py`](), sources[`${base}/cells/${name}.out`]()]);
      cells.set(name, { name, code, expected, ...spec });
    }),
  );
  return { text, cells };
}
