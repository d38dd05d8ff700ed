"""Page-ready time of the playground in Debian's Chromium, cold and warm (not a test: figures).

    .venv/bin/python tests/bench/page_ready.py [--runs N] [--dist DIR]

Starts two judge servers (KAEL_SANDBOX=off: nothing is graded here) on free ports, each serving
a copy of web/dist taken at the start (or of --dist DIR: another build to compare), so that a
rebuild during the run changes nothing: one as built (the page starts Python from the build's
memory snapshot), one with the snapshot removed (the page falls back to a normal start: Pyodide
started and kael imported). Then measures, N times each, interleaved:

* cold: a fresh browser context (no HTTP cache), navigation to "Run" enabled, then the time to
  the first result of ``print(6*7)``;
* warm: one persistent context (a returning visitor: the HTTP cache and the service worker's
  cache hold Pyodide's 9 MB wasm, the standard library and the snapshot), reloaded N times, the
  same two times.

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


def start_server(dist: Path, snapshot: bool = True) -> LiveServer:
    """The judge serving a copy of the build `dist` and of its wheel (web/dist/wheels/); without
    the memory snapshot when `snapshot` is false (the page then starts Python normally)."""
    data = Path(tempfile.mkdtemp(prefix="kael-bench-"))
    shutil.copytree(dist, data / "web")
    if not snapshot:
        shutil.rmtree(data / "web" / "snapshot")
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
    return (f"{name:<36} median {statistics.median(values):6.2f} s   "
            f"min {min(values):6.2f} s   max {max(values):6.2f} s   (n={len(values)})")


def cold_runs(browser, urls: dict, runs: int) -> dict:
    """Each run: bare Pyodide, then each start of the playground, in fresh contexts."""
    out = {"bare": [], **{name: [] for name in urls}}
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        serve_bare(context, urls["snapshot"])
        out["bare"].append(measure_bare(context.new_page(), urls["snapshot"]))
        context.close()
        for name, url in urls.items():
            context = browser.new_context(viewport={"width": 1440, "height": 900})
            out[name].append(measure(context.new_page(), url, first_result=True))
            context.close()
    return out


def warm_runs(p, urls: dict, runs: int) -> dict:
    """A returning visitor (one persistent profile: HTTP cache and service worker), reloaded."""
    out = {"bare": [], **{name: [] for name in urls}}
    with tempfile.TemporaryDirectory(prefix="kael-profile-") as profile:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, viewport={"width": 1440, "height": 900})
        serve_bare(context, urls["snapshot"])
        page = context.new_page()
        for url in urls.values():
            measure(page, url, first_result=False)  # fills the caches
        measure_bare(page, urls["snapshot"])
        for _ in range(runs):
            out["bare"].append(measure_bare(page, urls["snapshot"]))
            for name, url in urls.items():
                out[name].append(measure(page, url, first_result=True))
        context.close()
    return out


def report(label: str, runs: dict) -> None:
    print(summary(f"bare Pyodide, {label}", runs["bare"]))
    bare = statistics.median(runs["bare"])
    for name in ("snapshot", "normal"):
        ready = [m["ready"] for m in runs[name]]
        first = [m["ready"] + m["result"] for m in runs[name]]
        print(summary(f"{name} start, {label}: Run enabled", ready))
        print(summary(f"{name} start, {label}: first result", first))
        print(f"  {name} start / bare Pyodide, {label} = {statistics.median(ready) / bare:.2f} "
              f"(ready - bare = {statistics.median(ready) - bare:+.2f} s)")
    ratio = statistics.median(m["ready"] + m["result"] for m in runs["snapshot"]) / statistics.median(
        m["ready"] + m["result"] for m in runs["normal"])
    print(f"  first result, snapshot start / normal start, {label} = {ratio:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--dist", type=Path, default=REPO / "web" / "dist", help="the build to serve (default: web/dist)")
    args = parser.parse_args()
    servers = {"snapshot": start_server(args.dist), "normal": start_server(args.dist, snapshot=False)}
    urls = {name: server.url for name, server in servers.items()}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            cold = cold_runs(browser, urls, args.runs)
            browser.close()
            warm = warm_runs(p, urls, args.runs)
    finally:
        for server in servers.values():
            server.stop()
            shutil.rmtree(server.copies, ignore_errors=True)

    print(f"page ready (navigation to Run enabled) and first result (navigation to print(6*7)'s 42), "
          f"{args.dist}, {os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    report("cold", cold)
    report("warm", warm)
    for name in ("snapshot", "normal"):
        print(f"stages reported by the page, {name} start, last cold run: {cold[name][-1]['stages']!r}; "
              f"last warm run: {warm[name][-1]['stages']!r}")


if __name__ == "__main__":
    main()
