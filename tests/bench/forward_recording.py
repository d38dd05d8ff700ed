"""What the playground's run switches cost on every example: each example program run by the
worker's own driver (web/src/worker/playground.py, with a stand-in for the page) without kael's
source lines and without recording (the reference), with ``set_detect_source`` on (the page's
default), and with the forward pass recorded for the stepper (``kael.viz.forward`` plus a trace
of the first backward passes, within playground.py's ``RECORD_LIMITS``, as "Step through my
code" does), with the size of the document that recording posts to the page. Rounds alternate the variants so that
machine load hits them alike; prints the best wall time of each and the ratios. Figures only.

Usage: ``KAEL_BACKEND=python python tests/bench/forward_recording.py [--rounds 3] [name ...]``
(the browser runs the pure-Python backend; ``name`` picks examples by file name).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import sys
import time
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from autograd_bench import print_ratios  # noqa: E402

WORKER = REPO / "web" / "src" / "worker"
PROGRAMS = REPO / "web" / "src" / "examples" / "programs"
VARIANTS = {
    "plain (reference)": {"detect_source": False},
    "set_detect_source on": {"detect_source": True},
    "forward recorded + source": {"detect_source": True, "record_forward": True},
}


def load_driver():
    """playground as the worker loads it (by name, from its folder), its displays counted, not posted."""
    sent = []
    fake = types.ModuleType("_kael_worker")
    fake.emit = lambda kind, text: sent.append((kind, len(text)))
    sys.modules["_kael_worker"] = fake
    sys.modules["__main__"] = types.ModuleType("__main__")  # the driver clears __main__: not this script
    sys.path.insert(0, str(WORKER))  # the worker's site folder: playground and the modules it imports
    module = importlib.import_module("playground")
    module.install_display_hook()
    return module, sent


def run_once(driver, code, options) -> float:
    request = json.dumps({"code": code, **options})
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        started = time.perf_counter()
        result = json.loads(driver.run(request))
        elapsed = time.perf_counter() - started
    if not result["ok"]:
        raise RuntimeError(f"the example failed: {result['error']['message']}")
    return elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    driver, sent = load_driver()
    programs = sorted(PROGRAMS.glob("*.py"))
    if args.names:
        programs = [p for p in programs if p.stem in args.names]
    from kael.backend import backend_name

    print(f"backend {backend_name()}, Python {sys.version.split()[0]}, best of {args.rounds} rounds")
    for path in programs:
        code = path.read_text()
        best = {name: [] for name in VARIANTS}
        run_once(driver, code, VARIANTS["plain (reference)"])  # imports and caches warm
        for _ in range(args.rounds):
            for name, options in VARIANTS.items():
                best[name].append(run_once(driver, code, options))
        sent.clear()
        run_once(driver, code, VARIANTS["forward recorded + source"])
        forward = [size for kind, size in sent if kind == "forward"]
        print_ratios(f"{path.stem} (recorded document: {forward[0] / 1024:.0f} KiB)" if forward else path.stem, best)


if __name__ == "__main__":
    main()
