// The Node half of tests/bench/browser_vs_node.py: the same Pyodide (web/node_modules), the same
// kael wheel and precompiled modules the page loads (from a built web/dist), and the program run
// either plainly (runPython of its text) or through the worker's own playground (as the page
// runs it, with its run options). Not a test: figures.
//
//   node tests/bench/browser_vs_node.mjs DIST PROGRAM.py
//
// It loads once, prints {"ready": seconds} and then answers one JSON line per request line on
// stdin: {"mode": "plain" | "playground", "detect_source": bool, "record_forward": bool}
// gets {"ms": milliseconds} (or {"error": text}); {"mode": "value", "code": text} runs that code
// through playground.run and gets {"ms", "value"} (its last expression's repr). EOF ends it.

import { createRequire } from "node:module";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ENV, siteFiles } from "../../web/scripts/snapshot.mjs";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const WORKER = path.join(REPO, "web", "src", "worker");

function bytes(file) {
  const b = readFileSync(file);
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

async function load(dist) {
  const require = createRequire(path.join(REPO, "web", "package.json"));
  const { loadPyodide } = await import(pathToFileURL(require.resolve("pyodide/pyodide.mjs")).href);
  const py = await loadPyodide({ env: { ...ENV } }); // the page's environment (worker.ts's loadPyodide call)
  const sink = { write: (buffer) => buffer.length }; // the page posts output; here it is dropped
  py.setStdout(sink);
  py.setStderr(sink);
  const site = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  const wheel = readdirSync(path.join(dist, "wheels")).find((name) => name.endsWith(".whl"));
  py.unpackArchive(bytes(path.join(dist, "wheels", wheel)), "wheel", { extractDir: site });
  py.unpackArchive(bytes(path.join(dist, "bytecode", `${wheel}.pyc.zip`)), "zip", { extractDir: site });
  for (const { name, text } of siteFiles(WORKER)) py.FS.writeFile(`${site}/${name}`, text); // as the worker does
  py.registerJsModule("_kael_worker", { emit: (kind, json) => JSON.parse(json) }); // as worker.ts parses it
  if (process.env.KAEL_JS_KERNELS !== "off") {
    py.registerJsModule("_kael_kernels", { ...(await import(pathToFileURL(path.join(WORKER, "kernels.mjs")).href)) });
  }
  py.runPython("import kael, playground; playground.install_display_hook()");
  return py;
}

function runOnce(py, code, request) {
  const started = performance.now();
  if (request.mode === "value") {
    const playground = py.pyimport("playground");
    try {
      const result = JSON.parse(playground.run(JSON.stringify({ code: request.code, detect_source: false, record_forward: false })));
      if (!result.ok) throw new Error(`${result.error.type}: ${result.error.message}`);
      return { ms: performance.now() - started, value: result.value };
    } finally {
      playground.destroy();
    }
  }
  if (request.mode === "plain") {
    py.globals.set("PROGRAM", code);
    py.runPython("exec(compile(PROGRAM, 'main.py', 'exec'), {'__name__': '__main__'})");
  } else {
    const playground = py.pyimport("playground");
    try {
      const result = JSON.parse(playground.run(JSON.stringify({ code, detect_source: request.detect_source, record_forward: request.record_forward })));
      if (!result.ok) throw new Error(`${result.error.type}: ${result.error.message}`);
    } finally {
      playground.destroy();
    }
  }
  return { ms: performance.now() - started };
}

async function main() {
  const [dist, program] = process.argv.slice(2);
  const started = performance.now();
  const py = await load(path.resolve(dist));
  const code = readFileSync(program, "utf8");
  process.stdout.write(JSON.stringify({ ready: (performance.now() - started) / 1000 }) + "\n");
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    let reply;
    try {
      reply = runOnce(py, code, JSON.parse(line));
    } catch (error) {
      reply = { error: String(error?.message ?? error) };
    }
    process.stdout.write(JSON.stringify(reply) + "\n");
  }
}

main().catch((error) => {
  process.stderr.write(`browser_vs_node.mjs: ${error?.stack ?? error}\n`);
  process.exit(3);
});
