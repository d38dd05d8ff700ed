// Run pytest inside the real Pyodide interpreter under Node.
//
//   node tests/pyodide/run.mjs [pytest args...]      (default: tests/kael -q)
//
// The repository is mounted at /repo and becomes Python's working directory, so pytest
// arguments are paths relative to the repository root, as in the CPython lanes. pytest and
// its pure-Python dependencies come from the wheels that `make setup` downloads into
// .cache/pyodide-wheels/ (listed in its wheels.txt); nothing is fetched from the network.
// kael runs on its pure-Python backend (KAEL_BACKEND=python), as it does in the browser.
// The process exits with pytest's exit code.

import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const WHEEL_DIR = path.join(REPO, ".cache", "pyodide-wheels");
const MOUNT = "/repo";

function fail(message) {
  process.stderr.write(`tests/pyodide/run.mjs: ${message}\n`);
  process.exit(3);
}

function resolvePyodide() {
  const require = createRequire(path.join(REPO, "web", "package.json"));
  try {
    return require.resolve("pyodide/pyodide.mjs");
  } catch {
    fail("pyodide is not installed in web/node_modules; run `make setup` (npm ci in web/)");
  }
}

function wheelFiles() {
  const manifest = path.join(WHEEL_DIR, "wheels.txt");
  if (!existsSync(manifest)) {
    fail(`${path.relative(REPO, manifest)} is missing; run \`make setup\` to download the wheels`);
  }
  const names = readFileSync(manifest, "utf8").split("\n").map((s) => s.trim()).filter(Boolean);
  for (const name of names) {
    if (!existsSync(path.join(WHEEL_DIR, name))) fail(`wheel ${name} is missing; run \`make setup\``);
  }
  return names.map((name) => path.join(WHEEL_DIR, name));
}

function writer(stream) {
  return {
    isatty: Boolean(stream.isTTY),
    write(buffer) {
      stream.write(buffer);
      return buffer.length;
    },
  };
}

async function main() {
  const { loadPyodide } = await import(pathToFileURL(resolvePyodide()).href);
  const wheels = wheelFiles();

  const env = {
    HOME: "/home/pyodide",
    KAEL_BACKEND: "python",
    // Hypothesis keeps its example database in memory (Emscripten's /tmp), never on the host.
    HYPOTHESIS_STORAGE_DIRECTORY: "/tmp/hypothesis",
    PYTHONDONTWRITEBYTECODE: "1",
  };
  for (const name of ["CI", "COLUMNS", "TERM", "NO_COLOR", "FORCE_COLOR"]) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }

  const started = performance.now();
  const py = await loadPyodide({ env });
  py.setStdout(writer(process.stdout));
  py.setStderr(writer(process.stderr));

  const sitePackages = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  for (const wheel of wheels) {
    const bytes = readFileSync(wheel); // a Node Buffer, which Pyodide does not accept as is
    py.unpackArchive(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), "wheel", {
      extractDir: sitePackages,
    });
  }
  py.mountNodeFS(MOUNT, REPO);
  // kael's JavaScript kernels, as the page's worker registers them (web/src/worker/worker.ts):
  // the lane runs kael as the browser does, large float matmuls in JavaScript.
  const kernels = await import(pathToFileURL(path.join(REPO, "web", "src", "worker", "kernels.mjs")).href);
  py.registerJsModule("_kael_kernels", { ...kernels });

  const args = process.argv.slice(2);
  const pytestArgs = [...(args.length ? args : ["tests/kael", "-q"]), "-p", "no:cacheprovider"];
  py.globals.set("PYTEST_ARGS", py.toPy(pytestArgs));
  py.globals.set("STARTUP_SECONDS", (performance.now() - started) / 1000);

  return await py.runPythonAsync(`
import importlib, os, sys

os.environ["KAEL_BACKEND"] = "python"
os.chdir(${JSON.stringify(MOUNT)})
sys.path.insert(0, ${JSON.stringify(MOUNT)})
sys.dont_write_bytecode = True
importlib.invalidate_caches()

import pytest


class PyodideLane:
    """Hypothesis keeps no example database and no wall-clock deadline here, and draws the same
    examples on every run."""

    def pytest_configure(self, config):
        from hypothesis import settings

        settings.register_profile("pyodide", settings.default, database=None, deadline=None, derandomize=True)
        settings.load_profile("pyodide")


print(f"pyodide: Python {sys.version.split()[0]} on {sys.platform}, "
      f"pytest {pytest.__version__}, started in {STARTUP_SECONDS:.1f} s")
sys.stdout.flush()
int(pytest.main(list(PYTEST_ARGS), plugins=[PyodideLane()]))
`);
}

// An error that escapes Pyodide would make Node print the line it came from: the whole
// minified pyodide.asm.mjs. Print the error alone.
main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`tests/pyodide/run.mjs: ${error?.stack ?? error}\n`);
    process.exit(3);
  },
);
