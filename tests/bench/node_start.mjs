// Pyodide's start to a first result under Node, from the build's memory snapshot against a
// normal start, each in a fresh Node process, in interleaved rounds (issue 26's "Pyodide start to
// first print" row). Not a test: figures.
//
//   node tests/bench/node_start.mjs [--dist web/dist] [--rounds 7]
//
// normal:   loadPyodide, the kael wheel and its precompiled modules unpacked, the worker's site
//           files written, `import kael, playground`, then print(6*7) (what worker.ts does on a
//           normal start);
// snapshot: the gzipped heap read and inflated, loadPyodide with it (`_loadSnapshot`, kael and
//           playground already imported), then print(6*7).
// Both start timing before Pyodide's module is imported. Each figure is the median of its
// rounds with the range; the ratio snapshot / normal is of medians from the same run.

import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const WORKER = path.join(REPO, "web", "src", "worker");

function arg(name, fallback) {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
}

function bytes(file) {
  const b = readFileSync(file);
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** One start in this process; returns milliseconds from before Pyodide's import to "42". */
async function once(kind, dist) {
  const started = performance.now();
  const { ENV, siteFiles } = await import(pathToFileURL(path.join(REPO, "web", "scripts", "snapshot.mjs")).href);
  const require = createRequire(path.join(REPO, "web", "package.json"));
  const { loadPyodide } = await import(pathToFileURL(require.resolve("pyodide/pyodide.mjs")).href);
  const kernels = { ...(await import(pathToFileURL(path.join(WORKER, "kernels.mjs")).href)) };
  const worker = { emit: () => {} };
  const wheel = readdirSync(path.join(dist, "wheels")).find((name) => name.endsWith(".whl"));
  let py;
  if (kind === "snapshot") {
    const heap = gunzipSync(readFileSync(path.join(dist, "snapshot", `${wheel}.heap.gz`)));
    const objects = { kael_worker: worker, kael_kernels: kernels };
    py = await loadPyodide({ env: { ...ENV }, _loadSnapshot: heap, _snapshotDeserializer: (name) => objects[name] });
  } else {
    py = await loadPyodide({ env: { ...ENV } });
    const site = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
    py.unpackArchive(bytes(path.join(dist, "wheels", wheel)), "wheel", { extractDir: site });
    py.unpackArchive(bytes(path.join(dist, "bytecode", `${wheel}.pyc.zip`)), "zip", { extractDir: site });
    for (const { name, text } of siteFiles(WORKER)) py.FS.writeFile(`${site}/${name}`, text);
    py.registerJsModule("_kael_worker", worker);
    py.registerJsModule("_kael_kernels", kernels);
    py.runPython("import kael, playground");
  }
  let out = "";
  py.setStdout({ batched: (text) => { out += text; } });
  py.runPython("print(6*7)");
  if (out.trim() !== "42") throw new Error(`the ${kind} start printed ${JSON.stringify(out)}`);
  return performance.now() - started;
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main() {
  const dist = path.resolve(arg("--dist", path.join(REPO, "web", "dist")));
  const one = arg("--one", null);
  if (one) {
    process.stdout.write(JSON.stringify({ ms: await once(one, dist) }) + "\n");
    return;
  }
  const rounds = Number(arg("--rounds", "7"));
  const times = { normal: [], snapshot: [] };
  for (let round = 0; round < rounds; round++) {
    for (const kind of round % 2 ? ["snapshot", "normal"] : ["normal", "snapshot"]) {
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--one", kind, "--dist", dist], { encoding: "utf8" });
      if (child.status !== 0) throw new Error(`the ${kind} start failed:\n${child.stderr}`);
      times[kind].push(JSON.parse(child.stdout.trim().split("\n").pop()).ms);
    }
  }
  console.log(`Pyodide under Node ${process.version}, start to print(6*7)'s 42, ${rounds} fresh processes each, ` +
              `${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  for (const kind of ["normal", "snapshot"]) {
    const t = times[kind];
    console.log(`${kind.padEnd(9)} median ${(median(t) / 1000).toFixed(2)} s   min ${(Math.min(...t) / 1000).toFixed(2)} s   max ${(Math.max(...t) / 1000).toFixed(2)} s`);
  }
  console.log(`snapshot / normal = ${(median(times.snapshot) / median(times.normal)).toFixed(2)}`);
}

await main();
