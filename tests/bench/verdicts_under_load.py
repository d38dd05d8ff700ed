"""Verdicts on a quiet machine against the same verdicts on a machine made busy (not a test: figures).

    .venv/bin/python tests/bench/verdicts_under_load.py [--busy 40] [--exercises a,b,...]

Grades every reference, starter, mutant and variant of the chosen exercises with four grading
threads (as the judge's tests do) through the real harness and its local runner, first on the
machine as it is, then again while ``--busy`` processes spin, each in a session of its own (the
kernel's autogroup scheduling shares the CPU between sessions, so busy processes that share one
session would slow the grading little). It prints how many verdicts differ, and which. A verdict
must not depend on what else the machine runs: the time limit is CPU time, and the wall clock
allows three times as much (``harness.catalog.WALL_FACTOR``). Before that change, 40 busy
processes turned 13 and 15 of these 56 verdicts (two runs) into Time Limit Exceeded.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "exercises"))

from harness import catalog  # noqa: E402
from harness.grade import grade, reference_outcomes  # noqa: E402
from harness.childrun import clear_cache  # noqa: E402

DEFAULT = "hooks,graph-walk,deep-chain,backward-engine,checkpoint"
SPIN = "import time\nend = time.monotonic() + 900\nwhile time.monotonic() < end:\n    pass\n"


def submissions(ids: list[str]) -> list[tuple[str, str, str]]:
    rows = []
    for e in map(catalog.find, ids):
        rows.append((e.id, "reference", e.reference_source()))
        rows.append((e.id, "starter", e.starter()))
        rows += [(e.id, name, source) for name, source in e.mutants().items()]
        rows += [(e.id, name, source) for name, source in e.variants().items()]
    return rows


def verdicts(ids: list[str], rows) -> tuple[dict, float]:
    clear_cache()  # the reference runs again too, under the same conditions
    started = time.monotonic()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(reference_outcomes, map(catalog.find, ids)))
        futures = {f"{ex}:{name}": pool.submit(grade, ex, source, trace=False) for ex, name, source in rows}
        return {key: f.result()["verdict"] for key, f in futures.items()}, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=40)
    parser.add_argument("--exercises", default=DEFAULT)
    args = parser.parse_args()
    ids = args.exercises.split(",")
    rows = submissions(ids)
    quiet, quiet_s = verdicts(ids, rows)
    print(f"{len(rows)} submissions of {', '.join(ids)}; quiet: {quiet_s:.1f} s, load average {os.getloadavg()[0]:.1f}")
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN], start_new_session=True) for _ in range(args.busy)]
    try:
        time.sleep(3)
        busy, busy_s = verdicts(ids, rows)
        load = os.getloadavg()[0]
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    differ = {key: (quiet[key], busy[key]) for key in quiet if quiet[key] != busy[key]}
    print(f"with {args.busy} busy processes: {busy_s:.1f} s ({busy_s / quiet_s:.1f}x the quiet run), load average {load:.1f}")
    print(f"{len(differ)} of {len(rows)} verdicts differ from the quiet run")
    for key, (was, now) in sorted(differ.items()):
        print(f"  {key}: {was} -> {now}")


if __name__ == "__main__":
    main()
