// The files Python's site folder gets beside kael, so that a program's `import playground`
// finds the worker's Python side. site_files.json is the one list of them, read by everything
// that writes them: the worker on every start (worker.ts, installKael), scripts/snapshot.mjs
// before it imports them into the memory snapshot (its manifest records each one's SHA-256, which
// the worker compares with these texts: a snapshot made from other files holds another
// playground, already imported), and tests/bench/browser_vs_node.mjs. A new module of the
// worker's Python is one line there; site_files.test.ts fails for a .py file left out.

import names from "./site_files.json";

// Every .py and .json file of this folder as text (Vite inlines them into the worker's bundle).
const TEXTS = import.meta.glob<string>(["./*.py", "./*.json"], { query: "?raw", import: "default", eager: true });

export interface SiteFile {
  name: string;
  text: string;
}

export const SITE_FILES: readonly SiteFile[] = names.map((name) => {
  const text = TEXTS[`./${name}`];
  if (text === undefined) throw new Error(`site_files.json lists ${name}, which is not a .py or .json file in web/src/worker`);
  return { name, text };
});
