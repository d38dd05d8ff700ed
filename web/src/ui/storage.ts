// What the browser keeps between visits: the playground's code and one draft per exercise.

const PLAYGROUND = "kael.playground.code";
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
};
