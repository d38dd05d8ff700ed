// The kael wheel's bytecode for Pyodide, made at build time: importing kael in the browser
// compiled its ~60 modules from source on every page load (about a second of the "kael" stage
// on this machine under load; 0.3 s with bytecode). Pyodide itself (from web/node_modules, the
// same version the page loads, so the same cache tag and magic number) unpacks the wheel where
// the page will, compiles each module to a checked-hash .pyc (Python compares it with the
// source's hash on import and compiles from source when they differ, so a wheel rebuilt without
// a new build of the page is never run from stale bytecode), and zips the __pycache__ files.
//
// Usage (prepare.mjs calls it): await precompileWheel(wheelPath, zipPath)

import { readFileSync, writeFileSync } from "node:fs";
import { loadPyodide } from "pyodide";

const COMPILE = `
import io, os, py_compile, sys, zipfile

def compile_wheel(site, wheel):
    wheel = wheel.to_bytes()  # a JS Uint8Array
    written = []
    with zipfile.ZipFile(io.BytesIO(wheel)) as archive:
        sources = [n for n in archive.namelist() if n.endswith(".py") and ".dist-info/" not in n]
    for name in sources:
        written.append(py_compile.compile(
            os.path.join(site, name), doraise=True,
            invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in written:
            archive.write(path, os.path.relpath(path, site))
    return out.getvalue(), len(written), sys.implementation.cache_tag
`;

export async function precompileWheel(wheelPath, zipPath) {
  const wheel = new Uint8Array(readFileSync(wheelPath));
  const py = await loadPyodide({ env: { PYTHONDONTWRITEBYTECODE: "1" } });
  const site = py.runPython("import sysconfig; sysconfig.get_paths()['purelib']");
  py.unpackArchive(wheel, "wheel", { extractDir: site });
  py.runPython(COMPILE);
  const result = py.globals.get("compile_wheel")(site, wheel);
  const [bytes, count, tag] = result.toJs();
  result.destroy();
  writeFileSync(zipPath, bytes);
  return { count, tag, size: bytes.length };
}
