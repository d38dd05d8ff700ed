"""Page-ready time of the playground in Debian's Chromium, cold and warm (not a test: figures).

    .venv/bin/python tests/bench/page_ready.py [--runs N] [--url URL | --dist DIR]

Starts the judge server (KAEL_SANDBOX=off: nothing is graded here) on a free port unless --url
is given, serving a copy of web/dist taken at the start (or of --dist DIR: another build to
compare), so that a rebuild during the run changes nothing, then measures, N times each:

* cold: a fresh browser context (no HTTP cache), navigation to "Run" enabled, then the time to
  the first result of ``print(6*7)``;
* warm: one persistent context (a returning visitor: the HTTP cache holds Pyodide's 9 MB wasm and
  the standard library), reloaded N times.

Each is measured against bare Pyodide in the same run, interleaved with it: a page that only
imports the same pyodide.mjs from web/dist and awaits loadPyodide() (served through a Playwright
route on the same origin). It prints the median and the range of each, the playground's median
over bare Pyodide's (ratio and difference), and the loading stages the page itself reports
(runtime, standard library, kael). Numbers from a 2-core machine shared with other work are
orders of magnitude, not promises.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from live_server import LiveServer  # noqa: E402


PYODIDE = json.loads((REPO / "web" / "package.json").read_text())["dependencies"]["pyodide"]
BARE_PATH = "/bare-pyodide.html"
BARE_HTML = f"""<!doctype html><title>loading</title><script type="module">
const {{ loadPyodide }} = await import("./pyodide/{PYODIDE}/pyodide.mjs");
const py = await loadPyodide({{ indexURL: "./pyodide/{PYODIDE}/" }});
py.runPython("1 + 1");
document.title = "ready";
</script>"""


def serve_bare(context, url: str) -> None:
    context.route(url + BARE_PATH, lambda route: route.fulfill(body=BARE_HTML, content_type="text/html"))


def measure_bare(page, url: str) -> float:
    start = time.perf_counter()
    page.goto(url + BARE_PATH)
    expect(page).to_have_title("ready", timeout=120_000)
    return time.perf_counter() - start


def start_server(dist: Path) -> LiveServer:
    """The judge serving a copy of the build `dist` and of its wheel (web/dist/wheels/)."""
    data = Path(tempfile.mkdtemp(prefix="kael-bench-"))
    shutil.copytree(dist, data / "web")
    shutil.copytree(dist / "wheels", data / "wheels")
    server = LiveServer({"KAEL_DATA_DIR": data / "data", "KAEL_SANDBOX": "off",
                         "KAEL_WEB_DIST": data / "web", "KAEL_WHEEL_DIR": data / "wheels"}).start()
    server.copies = data  # removed with the server
    return server


def measure(page, url: str, first_result: bool) -> dict:
    run = page.get_by_role("button", name="Run", exact=True)
    start = time.perf_counter()
    page.goto(url + "/")
    expect(run).to_be_enabled(timeout=120_000)
    ready = time.perf_counter() - start
    stages = page.get_by_test_id("load-time").get_attribute("data-stages")
    result = None
    if first_result:
        page.get_by_role("textbox", name="Python code").click()
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.insert_text("print(6*7)")
        t0 = time.perf_counter()
        run.click()
        expect(page.get_by_role("log")).to_contain_text("42", timeout=60_000)
        result = time.perf_counter() - t0
    return {"ready": ready, "result": result, "stages": stages}


def summary(name: str, values: list[float]) -> str:
    return (f"{name:<28} median {statistics.median(values):6.2f} s   "
            f"min {min(values):6.2f} s   max {max(values):6.2f} s   (n={len(values)})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--url", help="a running server (default: start one)")
    parser.add_argument("--dist", type=Path, default=REPO / "web" / "dist", help="the build to serve (default: web/dist)")
    args = parser.parse_args()
    server = None if args.url else start_server(args.dist)
    url = args.url.rstrip("/") if args.url else server.url
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            cold, bare_cold = [], []
            for _ in range(args.runs):
                context = browser.new_context(viewport={"width": 1440, "height": 900})
                serve_bare(context, url)
                bare_cold.append(measure_bare(context.new_page(), url))
                context.close()
                context = browser.new_context(viewport={"width": 1440, "height": 900})
                cold.append(measure(context.new_page(), url, first_result=True))
                context.close()
            browser.close()

            warm, bare_warm = [], []
            with tempfile.TemporaryDirectory(prefix="kael-profile-") as profile:
                context = p.chromium.launch_persistent_context(
                    profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, viewport={"width": 1440, "height": 900})
                serve_bare(context, url)
                page = context.new_page()
                measure(page, url, first_result=False)  # fills the HTTP cache
                measure_bare(page, url)
                for _ in range(args.runs):
                    bare_warm.append(measure_bare(page, url))
                    warm.append(measure(page, url, first_result=False))
                context.close()
    finally:
        if server is not None:
            server.stop()
            shutil.rmtree(server.copies, ignore_errors=True)

    print(f"page ready (navigation to Run enabled), {url}, {os.cpu_count()} cores, "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(summary("cold (no HTTP cache)", [m["ready"] for m in cold]))
    print(summary("bare Pyodide, cold", bare_cold))
    print(summary("warm (persistent context)", [m["ready"] for m in warm]))
    print(summary("bare Pyodide, warm", bare_warm))
    for name, app, bare in (("cold", [m["ready"] for m in cold], bare_cold), ("warm", [m["ready"] for m in warm], bare_warm)):
        a, b = statistics.median(app), statistics.median(bare)
        print(f"{name}: playground / bare Pyodide = {a / b:.2f} (playground - bare = {a - b:+.2f} s)")
    print(summary("first result, print(6*7)", [m["result"] for m in cold]))
    print(f"stages reported by the page, last cold run: {cold[-1]['stages']!r}; last warm run: {warm[-1]['stages']!r}")


if __name__ == "__main__":
    main()
