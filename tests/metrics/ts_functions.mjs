// Functions (declarations, methods, arrows, function expressions) longer than a limit in the
// front end's TypeScript, by the TypeScript compiler's own parser (web/node_modules/typescript).
//
//   node tests/metrics/ts_functions.mjs [limit=60]
//
// A figure, not a test: prints each long function, then the total.

import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const ts = createRequire(path.join(ROOT, "web", "package.json"))("typescript");
const limit = Number(process.argv[2] ?? 60);

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []);
}

let total = 0;
let long = 0;
for (const file of files(path.join(ROOT, "web", "src"))) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      total += 1;
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (end - start + 1 > limit) {
        long += 1;
        const name = node.name?.getText() ?? "(anonymous)";
        console.log(`long: ${path.relative(ROOT, file)}:${start + 1} ${name} ${end - start + 1} lines`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
console.log(`typescript: ${long} of ${total} functions over ${limit} lines`);
