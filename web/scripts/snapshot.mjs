// The interpreter snapshot the page starts from (issue 26.3): at build time Pyodide (from
// web/node_modules, the very files the page loads) starts under Node the way the worker starts
// it, with the same environment, the kael wheel and its bytecode unpacked where the worker
// unpacks them, the worker's site files beside them (src/worker/site_files.json: playground and
// the modules it imports) and the same two JavaScript modules registered; every kael module and
// every site module are imported; then Pyodide's private `_makeSnapshot` option and
// `makeMemorySnapshot()` give the wasm heap as bytes. The worker passes those bytes back as
// `_loadSnapshot` and skips Python's start-up and kael's import.
//
// A snapshot only fits the exact Pyodide build that made it (Pyodide writes its BUILD_ID into
// the header and refuses another on restore), so the manifest beside it records the version,
// that BUILD_ID and the SHA-256 of pyodide.asm.wasm, of the wheel and of each site file (the heap
// holds playground as imported from them); the worker checks them and falls back to a normal
// start, saying why, when they do not match or the snapshot fails to load.
//
// The heap holds references to JavaScript objects only through Pyodide's table of them: the
// two registered modules are serialized as their names (SNAPSHOT_OBJECTS) and the worker hands
// its own objects back under the same names (`_snapshotDeserializer`). Anything else held from
// JavaScript makes the build fail here, not the page later.
//
// Written gzipped (the worker inflates it with DecompressionStream, whose CRC check also catches
// a damaged file). Usage (prepare.mjs calls it): await writeSnapshot({ ... })

import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { loadPyodide, version } from "pyodide";
import * as kernels from "../src/worker/kernels.mjs";

/** The environment the worker starts Python with (worker.ts passes the manifest's copy). */
export const ENV = { KAEL_BACKEND: "python", HOME: "/home/pyodide", PYTHONDONTWRITEBYTECODE: "1" };

// Imports every kael module (a module that needs what Pyodide lacks, numpy, is left out and
// listed), then every site module (playground first); returns what the manifest records. Nothing
// may draw random numbers or start timers here: the page gets this state as is (the worker
// reseeds `random` after a restore).
const importAll = (siteModules) => `
import importlib, json, pkgutil, sys
import kael
skipped = []
for info in pkgutil.walk_packages(kael.__path__, "kael."):
    try:
        importlib.import_module(info.name)
    except ImportError as error:
        skipped.append(f"{info.name}: {error}")
import ${siteModules.join(", ")}
import kael.backend.pyarray.js_kernel as js_kernel
json.dumps({"modules": sorted(m for m in sys.modules if m == "kael" or m.startswith("kael.")),
            "skipped": skipped, "js_kernels": js_kernel.KERNELS is not None,
            "python": sys.version.split()[0], "kael": getattr(kael, "__version__", "?")})
`;

/**
 * The files the worker writes into Python's site folder beside kael, in its order, as
 * { name, text }: the list is src/worker/site_files.json (worker.ts reads the same one).
 * @param {string} workerDir web/src/worker
 */
export function siteFiles(workerDir) {
  const names = JSON.parse(readFileSync(path.join(workerDir, "site_files.json"), "utf8"));
  return names.map((name) => ({ name, text: readFileSync(path.join(workerDir, name), "utf8") }));
}

/** The BUILD_ID Pyodide writes into a snapshot's header and checks on restore (pyodide.mjs). */
export function pyodideBuildId(pyodideDir) {
  const source = readFileSync(path.join(pyodideDir, "pyodide.mjs"), "utf8");
  const found = source.match(/BUILD_ID:"([0-9a-f]{64})"/);
  if (!found) throw new Error("no BUILD_ID in pyodide.mjs: this Pyodide makes snapshots differently");
  return found[1];
}

function sha256(bytes) {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * @param {{ pyodideDir: string, wheel: string, bytecode: string, workerDir: string,
 *           outFile: string, manifestFile: string }} paths
 */
export async function writeSnapshot({ pyodideDir, wheel, bytecode, workerDir, outFile, manifestFile }) {
  const started = performance.now();
  const py = await loadPyodide({ indexURL: pyodideDir + path.sep, env: { ...ENV }, _makeSnapshot: true, checkAPIVersion: true });
  const site = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  py.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel", { extractDir: site });
  py.unpackArchive(new Uint8Array(readFileSync(bytecode)), "zip", { extractDir: site });
  const files = siteFiles(workerDir);
  for (const { name, text } of files) py.FS.writeFile(`${site}/${name}`, text);
  const objects = snapshotObjects();
  py.registerJsModule("_kael_worker", objects.kael_worker);
  py.registerJsModule("_kael_kernels", objects.kael_kernels);
  const modules = files.filter(({ name }) => name.endsWith(".py")).map(({ name }) => name.slice(0, -3));
  const imported = JSON.parse(py.runPython(importAll(modules)));
  if (!imported.js_kernels) throw new Error("kael did not take the JavaScript kernels while the snapshot was made");
  const names = new Map(Object.entries(objects).map(([name, object]) => [object, name]));
  const heap = py.makeMemorySnapshot({
    serializer(object) {
      if (names.has(object)) return names.get(object);
      throw new Error(`the snapshot would hold a JavaScript object it cannot name: ${String(object).slice(0, 80)}`);
    },
  });
  const gz = gzipSync(heap, { level: 6 });
  writeFileSync(outFile, gz);
  const manifest = {
    format: 1,
    pyodide: version,
    buildId: pyodideBuildId(pyodideDir),
    wasmSha256: sha256(readFileSync(path.join(pyodideDir, "pyodide.asm.wasm"))),
    snapshotSha256: sha256(heap),
    wheelSha256: sha256(readFileSync(wheel)),
    bytes: heap.length,
    gzipBytes: gz.length,
    env: ENV,
    objects: Object.keys(objects),
    siteFiles: Object.fromEntries(files.map(({ name, text }) => [name, sha256(Buffer.from(text, "utf8"))])),
    python: imported.python,
    kael: imported.kael,
    wheel: path.basename(wheel),
    modules: imported.modules.length,
    skipped: imported.skipped,
  };
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 1) + "\n");
  return { ...manifest, seconds: (performance.now() - started) / 1000 };
}

/** The JavaScript objects the heap may refer to, by the names the worker gives its own back. */
function snapshotObjects() {
  return {
    kael_worker: { emit: () => { throw new Error("playground.display is not available while the snapshot is made"); } },
    kael_kernels: { ...kernels },
  };
}
