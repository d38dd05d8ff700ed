"""The notebook's activation-memory example in the page's worker (Chromium) and under Node, with
the same Pyodide (not a test: figures; issue 26.1).

    .venv/bin/python tests/bench/browser_vs_node.py [--rounds N] [--variants a,b,...] [--dist DIR]

Serves a copy of web/dist (taken at the start, so a rebuild meanwhile changes nothing) with the
judge server (KAEL_SANDBOX=off), opens the page in Debian's Chromium, and starts, in that page,
extra workers from the page's own worker script (the same worker.ts, driven with its protocol.ts
messages), one per browser variant; tests/bench/browser_vs_node.mjs is the Node side, one
process per Node variant, loading the same wheel and precompiled modules from the copy. Every
round runs each variant once, in a rotated order (load varies: interleaving keeps it fair), the
program's text from web/src/examples/programs/activation_memory.py. It prints each variant's
median and range, and each median over Node's plain run measured in the same rounds.

Variants (--variants, default: all):

* ``ui``: the page itself: the program typed into the editor and Run clicked, timed from the
  click until Run is enabled again (the page's worker, its options, its drawing);
* ``page``: a worker as the page makes it: interrupt buffer (when cross-origin isolated),
  detect_source on, record_forward off;
* ``page-nointerrupt``: the same without the interrupt buffer (no signal checks in the eval loop);
* ``page-nodetect``: the same with detect_source off;
* ``node``: Node, the program run plainly (runPython of its text);
* ``node-playground``: Node, through the worker's playground.run with the page's options.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "bench"))
from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from page_ready import start_server  # noqa: E402

PROGRAM = REPO / "web" / "src" / "examples" / "programs" / "activation_memory.py"
NODE_SIDE = REPO / "tests" / "bench" / "browser_vs_node.mjs"
MATMUL = REPO / "tests" / "bench" / "js_kernel_matmul.py"
PAGE = {"page": {"interrupt": True, "detect_source": True},
        "page-nointerrupt": {"interrupt": False, "detect_source": True},
        "page-nodetect": {"interrupt": True, "detect_source": False}}
NODE = {"node": {"mode": "plain"},
        "node-playground": {"mode": "playground", "detect_source": True, "record_forward": False}}
VARIANTS = ["ui", *PAGE, *NODE]

# In the page: a worker from the page's own worker script, initialised as client.ts does.
START_WORKER = """async ({ name, url, interrupt, urls }) => {
  const w = new Worker(url, { type: "module", name });
  const isolated = globalThis.crossOriginIsolated && typeof SharedArrayBuffer !== "undefined";
  const sab = interrupt && isolated ? new SharedArrayBuffer(1) : null;
  const at = (path) => new URL(path, document.baseURI).href;
  const config = { pyodideUrl: at(urls.pyodide), wheelUrl: at(urls.wheel), bytecodeUrl: at(urls.bytecode),
                   interruptBuffer: sab };
  window.__bench = window.__bench || {};
  window.__bench[name] = w;
  await new Promise((resolve, reject) => {
    w.onmessage = (e) => {
      if (e.data.type === "ready") resolve();
      if (e.data.type === "init_failed") reject(new Error(e.data.message));
    };
    w.postMessage({ type: "init", id: 1, config });
  });
  return { isolated: Boolean(sab) };
}"""

RUN_WORKER = """({ name, code, options }) => new Promise((resolve) => {
  const w = window.__bench[name];
  const id = Math.floor(Math.random() * 1e9);
  const started = performance.now();
  w.onmessage = (e) => {
    if (e.data.type === "done" && e.data.id === id) {
      const o = e.data.outcome;
      resolve({ ms: performance.now() - started, worker_ms: o.durationMs, error: o.ok ? null : o.error.message,
                value: o.ok ? o.value : null });
    }
  };
  w.postMessage({ type: "run", id, code, options });
})"""


def cpu_seconds(root: int) -> float:
    """User and system CPU time of ``root`` and every process below it (Linux /proc): what the
    run cost the machine, less swayed than wall time by waiting for a core."""
    parent, ticks = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(entry.name)] = int(fields[1])
        ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
    total = 0
    for pid, t in ticks.items():
        p = pid
        while p not in (root, 0, 1) and p in parent:
            p = parent[p]
        if p == root:
            total += t
    return total / os.sysconf("SC_CLK_TCK")


def browser_pid(marker: str) -> int:
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                return int(entry.name)
        except OSError:
            continue
    raise RuntimeError("the benchmark's Chromium process was not found")


class NodeSide:
    """One Node process with Pyodide loaded, answering one run per request line."""

    def __init__(self, dist: Path, request: dict):
        self.request = request
        self.proc = subprocess.Popen(["node", str(NODE_SIDE), str(dist), str(PROGRAM)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO)
        self.ready = json.loads(self.proc.stdout.readline())["ready"]

    def run(self) -> dict:
        cpu = cpu_seconds(self.proc.pid)
        reply = self._run()
        reply["cpu"] = cpu_seconds(self.proc.pid) - cpu
        return reply

    def _run_value(self, code: str) -> str:
        self.proc.stdin.write(json.dumps({"mode": "value", "code": code}) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        return reply.get("value") or reply

    def _run(self) -> dict:
        self.proc.stdin.write(json.dumps(self.request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if "error" in reply:
            raise RuntimeError(f"node: {reply['error']}")
        return reply

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


class PageSide:
    def __init__(self, page, code: str, dist: Path):
        self.page, self.code = page, code
        pyodide = json.loads((REPO / "web" / "package.json").read_text())["dependencies"]["pyodide"]
        wheel = next((dist / "wheels").glob("*.whl")).name
        self.urls = {"pyodide": f"pyodide/{pyodide}/", "wheel": f"wheels/{wheel}", "bytecode": f"bytecode/{wheel}.pyc.zip"}

    def start_worker(self, name: str, interrupt: bool) -> bool:
        url = next(w.url for w in self.page.workers if "worker" in w.url)
        return self.page.evaluate(START_WORKER, {"name": name, "url": url, "interrupt": interrupt, "urls": self.urls})["isolated"]

    def run_worker(self, name: str, detect_source: bool, code: str | None = None) -> dict:
        options = {"detectSource": detect_source, "recordForward": False}
        reply = self.page.evaluate(RUN_WORKER, {"name": name, "code": code or self.code, "options": options})
        if reply["error"]:
            raise RuntimeError(f"{name}: {reply['error']}")
        return reply

    def run_ui(self) -> dict:
        editor = self.page.get_by_role("textbox", name="Python code")
        editor.click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.insert_text(self.code)
        run = self.page.get_by_role("button", name="Run", exact=True)
        start = time.perf_counter()
        run.click()
        expect(run).to_be_disabled()  # running (a run of this program takes seconds)
        expect(run).to_be_enabled(timeout=600_000)
        return {"ms": (time.perf_counter() - start) * 1000}


def report(times: dict[str, list[float]], cpu: dict[str, list[float]], load: list[str]) -> None:
    print(f"activation-memory example, {len(next(iter(times.values())))} interleaved rounds, "
          f"{os.cpu_count()} cores, load average per round: {' | '.join(load)}")
    wall_ref = statistics.median(times["node"]) / 1000 if times.get("node") else None
    cpu_ref = statistics.median(cpu["node"]) if cpu.get("node") else None
    for name, values in times.items():
        wall = statistics.median(values) / 1000
        ratio = f" (/ node {wall / wall_ref:5.2f}x)" if wall_ref else ""
        line = f"{name:<18} wall median {wall:7.2f} s{ratio}  min {min(values) / 1000:6.2f}  max {max(values) / 1000:6.2f}"
        c = statistics.median(cpu[name])
        line += f"   cpu median {c:7.2f} s" + (f" (/ node {c / cpu_ref:5.2f}x)" if cpu_ref else "")
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--dist", type=Path, default=REPO / "web" / "dist")
    parser.add_argument("--matmul", action="store_true",
                        help="first run tests/bench/js_kernel_matmul.py in the page's worker and under Node")
    parser.add_argument("--js-flags", default="", help="V8 flags for Chromium (e.g. --no-liftoff)")
    args = parser.parse_args()
    variants = args.variants.split(",")
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants {sorted(unknown)}; known: {VARIANTS}")
    code = PROGRAM.read_text()
    server = start_server(args.dist)
    nodes = {}
    try:
        nodes = {name: NodeSide(server.copies / "web", NODE[name]) for name in variants if name in NODE}
        with sync_playwright() as p:
            marker = f"--kael-bench={os.getpid()}"  # finds this Chromium's processes among others'
            launch_args = CHROMIUM_ARGS + [marker] + ([f"--js-flags={args.js_flags}"] if args.js_flags else [])
            browser = p.chromium.launch(executable_path=CHROMIUM, args=launch_args)
            chromium_pid = browser_pid(marker)
            page = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
            page.goto(server.url + "/")
            expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=300_000)
            side = PageSide(page, code, server.copies / "web")
            for name in variants:
                if name in PAGE:
                    isolated = side.start_worker(name, PAGE[name]["interrupt"])
                    print(f"{name}: worker ready (interrupt buffer: {isolated})", flush=True)
            if args.matmul:
                matmul = MATMUL.read_text()
                worker = next(name for name in variants if name in PAGE)
                print(f"matmul in the page ({worker}): {side.run_worker(worker, False, matmul)['value']}", flush=True)
                node = next(iter(nodes.values()))
                print(f"matmul under Node: {node._run_value(matmul)}", flush=True)
            times = {name: [] for name in variants}
            cpu = {name: [] for name in variants}
            load = []
            for r in range(args.rounds):
                order = variants[r % len(variants):] + variants[:r % len(variants)]
                for name in order:
                    if name in NODE:
                        reply = nodes[name].run()
                    else:
                        before = cpu_seconds(chromium_pid)
                        reply = side.run_ui() if name == "ui" else side.run_worker(name, PAGE[name]["detect_source"])
                        reply["cpu"] = cpu_seconds(chromium_pid) - before
                    times[name].append(reply["ms"])
                    cpu[name].append(reply["cpu"])
                    print(f"round {r + 1} {name}: wall {reply['ms'] / 1000:.2f} s, cpu {reply['cpu']:.2f} s", flush=True)
                load.append(f"{os.getloadavg()[0]:.1f}")
            browser.close()
    finally:
        for node in nodes.values():
            node.close()
        server.stop()
        shutil.rmtree(server.copies, ignore_errors=True)
    report(times, cpu, load)


if __name__ == "__main__":
    main()
