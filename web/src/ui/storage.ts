// What the browser keeps between visits: the playground's code, one draft per exercise, and the
// drafts a share link's code took the place of.

const PLAYGROUND = "kael.playground.code";
const KEPT = "kael.kept";
const LINK_CODE = "kael.playground.linkCode";
const KEPT_LIMIT = 20;

/** A draft a share link replaced in the editor: the playground's ("playground") or an exercise's. */
export interface KeptDraft {
  where: string;
  code: string;
  /** "draft": the learner's own code a link replaced; "link": a link's code the learner left. */
  kind: "draft" | "link";
  at: number;
}

function keptList(): KeptDraft[] {
  try {
    const value: unknown = JSON.parse(read(KEPT) ?? "[]");
    return Array.isArray(value) ? value.filter((k) => typeof k?.where === "string" && typeof k?.code === "string") : [];
  } catch {
    return [];
  }
}
const draftKey = (id: string) => `kael.draft.${id}`;

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage full or disabled: the editor keeps working, the text is just not kept
  }
}

export const storage = {
  playground: () => read(PLAYGROUND),
  setPlayground: (code: string) => write(PLAYGROUND, code),
  draft: (id: string) => read(draftKey(id)),
  setDraft: (id: string, code: string) => write(draftKey(id), code),
  mode: () => read("kael.mode"),
  setMode: (mode: string) => write("kael.mode", mode),
  exercise: () => read("kael.exercise"),
  setExercise: (id: string | null) => (id ? write("kael.exercise", id) : localStorage.removeItem("kael.exercise")),
  /** The code a share link last put in the playground (unchanged, it is not the learner's draft). */
  linkCode: () => read(LINK_CODE),
  setLinkCode: (code: string) => write(LINK_CODE, code),
  /** The newest kept draft for a place, or null. */
  kept: (where: string) => keptList().filter((k) => k.where === where).pop() ?? null,
  /** Keep a draft (the same code for the same place is kept once; the oldest go past 20). */
  keep: (where: string, code: string, kind: KeptDraft["kind"] = "draft") => {
    const list = keptList().filter((k) => !(k.where === where && k.code === code));
    list.push({ where, code, kind, at: Date.now() });
    write(KEPT, JSON.stringify(list.slice(-KEPT_LIMIT)));
  },
  /** The learner took a kept draft back: it is in the editor (and its place's storage) again. */
  unkeep: (draft: KeptDraft) =>
    write(KEPT, JSON.stringify(keptList().filter((k) => !(k.where === draft.where && k.code === draft.code)))),
};
