// Lays out the static assets the front end loads at run time, under web/public/ (gitignored),
// so that `vite dev`, `vite build` and `vite preview` all serve the same URLs (src/config.ts):
//
//   public/pyodide/<version>/  Pyodide's core files from the pinned npm package
//   public/wheels/<wheel>      the kael wheel from ../dist (built by `make wheel`)
//   public/bytecode/<wheel>.pyc.zip  its modules compiled by Pyodide (scripts/precompile.mjs)
//   public/snapshot/<wheel>.heap.gz  Python's memory with kael imported, and <wheel>.heap.json,
//                              the build it fits (scripts/snapshot.mjs)
//   public/data/               the exercises' public parts (scripts/export_exercises.py)
//   public/api/health          {"status": "static"}: on static hosting the page's probe of the
//                              judge finds this file (no 404 in the console) and hides Submit;
//                              the real server answers /api/health itself
//
// Usage: node scripts/prepare.mjs   (npm run build and npm run dev run it first)

import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { precompileWheel } from "./precompile.mjs";
import { writeSnapshot } from "./snapshot.mjs";

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const REPO = path.resolve(WEB, "..");
const PUBLIC = path.join(WEB, "public");

function fail(message) {
  process.stderr.write(`scripts/prepare.mjs: ${message}\n`);
  process.exit(1);
}

function copyPyodide() {
  const pkg = JSON.parse(readFileSync(path.join(WEB, "package.json"), "utf8"));
  const version = pkg.dependencies.pyodide;
  const source = path.join(WEB, "node_modules", "pyodide");
  if (!existsSync(source)) fail("web/node_modules/pyodide is missing; run `make setup` (npm ci in web/)");
  const installed = JSON.parse(readFileSync(path.join(source, "package.json"), "utf8")).version;
  if (installed !== version) fail(`node_modules has pyodide ${installed}, package.json pins ${version}; run npm ci`);
  const target = path.join(PUBLIC, "pyodide", version);
  rmSync(path.join(PUBLIC, "pyodide"), { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const name of ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]) {
    copyFileSync(path.join(source, name), path.join(target, name));
  }
  return version;
}

function copyWheel() {
  const dist = path.join(REPO, "dist");
  const wheels = existsSync(dist)
    ? readdirSync(dist).filter((name) => /^kael-[^-]+-py3-none-any\.whl$/.test(name))
    : [];
  if (wheels.length === 0) fail("no kael wheel in dist/; run `make wheel` first");
  wheels.sort((a, b) => statSync(path.join(dist, b)).mtimeMs - statSync(path.join(dist, a)).mtimeMs);
  const target = path.join(PUBLIC, "wheels");
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  copyFileSync(path.join(dist, wheels[0]), path.join(target, wheels[0]));
  return wheels[0];
}

function exportExercises() {
  const venvPython = path.join(REPO, ".venv", "bin", "python");
  const python = existsSync(venvPython) ? venvPython : "python3";
  execFileSync(python, [path.join(WEB, "scripts", "export_exercises.py"), path.join(PUBLIC, "data")], {
    stdio: "inherit",
  });
}

async function writeBytecode(wheel) {
  const target = path.join(PUBLIC, "bytecode");
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  try {
    return await precompileWheel(path.join(PUBLIC, "wheels", wheel), path.join(target, `${wheel}.pyc.zip`));
  } catch (error) {
    fail(`precompiling ${wheel} with Pyodide failed: ${error?.message ?? error}`); // not Node's dump of the minified source
  }
}

async function writeHeapSnapshot(wheel) {
  const target = path.join(PUBLIC, "snapshot");
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  try {
    return await writeSnapshot({
      pyodideDir: path.join(WEB, "node_modules", "pyodide"),
      wheel: path.join(PUBLIC, "wheels", wheel),
      bytecode: path.join(PUBLIC, "bytecode", `${wheel}.pyc.zip`),
      workerDir: path.join(WEB, "src", "worker"),
      outFile: path.join(target, `${wheel}.heap.gz`),
      manifestFile: path.join(target, `${wheel}.heap.json`),
    });
  } catch (error) {
    fail(`making the memory snapshot with Pyodide failed: ${error?.message ?? error}`);
  }
}

function writeStaticHealth() {
  const dir = path.join(PUBLIC, "api");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "health"), JSON.stringify({ status: "static", grading: "none" }) + "\n");
}

const version = copyPyodide();
writeStaticHealth();
const wheel = copyWheel();
const bytecode = await writeBytecode(wheel);
const snapshot = await writeHeapSnapshot(wheel);
exportExercises();
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
console.log(`prepared public/: pyodide ${version}, ${wheel} (${bytecode.count} modules precompiled, ${bytecode.tag}), ` +
  `memory snapshot ${mb(snapshot.bytes)} (${mb(snapshot.gzipBytes)} gzipped, ${snapshot.modules} kael modules, ` +
  `${snapshot.seconds.toFixed(1)} s), exercises`);
