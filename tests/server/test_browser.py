"""The headers in a real browser: a page served by the judge starts Pyodide in a module worker,
installs the kael wheel and runs Python under the server's CSP, cross-origin isolated (so the
page can use SharedArrayBuffer to interrupt Python), with no CSP violation; Swagger UI loads too.
Debian's Chromium through pytest-playwright's ``page`` fixture (launch settings in
tests/conftest.py)."""

import json
import re
import zipfile

import pytest

from server.core.config import REPO

sync_api = pytest.importorskip("playwright.sync_api")
PYODIDE = REPO / "web" / "node_modules" / "pyodide"

PAGE = """<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>csp check</title><script type="module" src="/assets/main-0001.js"></script></head>
<body><pre id="out">starting</pre></body></html>"""

MAIN = """
const out = document.getElementById("out");
const worker = new Worker("/assets/worker-0001.js", { type: "module" });
worker.postMessage({ isolated: self.crossOriginIsolated, sab: typeof SharedArrayBuffer });
worker.onmessage = (e) => { out.textContent = JSON.stringify(e.data); };
worker.onerror = (e) => { out.textContent = JSON.stringify({ error: String(e.message) }); };
"""

WORKER = """
import { loadPyodide } from "/pyodide/%(version)s/pyodide.mjs";
self.onmessage = async (e) => {
  try {
    const py = await loadPyodide({ indexURL: "/pyodide/%(version)s/" });
    const wheel = await (await fetch("/wheels/%(wheel)s")).arrayBuffer();
    py.unpackArchive(wheel, "wheel", { extractDir: "/lib/python3.14/site-packages" });
    const interrupt = new Uint8Array(new SharedArrayBuffer(1));
    py.setInterruptBuffer(interrupt);
    const result = py.runPython(`
import kael
x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()
y.backward()
str(x.grad.tolist())
`);
    self.postMessage({ ...e.data, result, workerIsolated: self.crossOriginIsolated });
  } catch (err) {
    self.postMessage({ ...e.data, error: String(err) });
  }
};
"""


def watch(page):
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    return problems


def test_pyodide_runs_kael_in_a_module_worker_under_the_csp(make_server, tmp_path, page):
    if not (PYODIDE / "package.json").exists():
        pytest.skip("web/node_modules is not installed (make setup)")
    version = json.loads((PYODIDE / "package.json").read_text())["version"]
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel = wheels / "kael-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:  # the source tree as a wheel: no build step needed
        for path in (REPO / "kael").rglob("*.py"):
            z.write(path, path.relative_to(REPO).as_posix())
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text(PAGE)
    (dist / "assets" / "main-0001.js").write_text(MAIN)
    (dist / "assets" / "worker-0001.js").write_text(WORKER % {"version": version, "wheel": wheel.name})
    server = make_server(KAEL_WEB_DIST=dist, KAEL_WHEEL_DIR=wheels, KAEL_SANDBOX="off").start()

    problems = watch(page)
    page.goto(server.url + "/exercises/some-route")
    # (no wait_for_function with a string: it evaluates code, which this CSP rightly refuses)
    sync_api.expect(page.locator("#out")).to_have_text(re.compile(r"^\{"), timeout=90_000)
    outcome = json.loads(page.text_content("#out"))
    assert outcome.get("error") is None, (outcome, problems)
    assert outcome["result"] == "[2.0, 4.0, 6.0]"
    assert outcome["isolated"] is True and outcome["workerIsolated"] is True
    assert outcome["sab"] == "function"
    assert problems == []


def test_swagger_ui_renders_under_the_csp(make_server, page):
    server = make_server(KAEL_SANDBOX="off").start()
    problems = watch(page)
    page.goto(server.url + "/docs")
    page.wait_for_selector(".opblock-summary-path", timeout=30_000)
    assert "/api/submissions" in page.locator(".opblock-summary-path").all_text_contents()
    assert page.locator(".opblock").count() >= 5
    assert problems == []
