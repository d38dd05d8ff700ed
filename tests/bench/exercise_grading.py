"""Grading time of a correct solution, per exercise (a benchmark: it reports, asserts nothing).

Each exercise's reference solution is graded as a submission 5 times through ``harness.grade``
(its own child process, the reference's expected outcomes already cached, as in the server),
and the p50 of the child's CPU seconds (user + sys, from RUSAGE_CHILDREN) and of its wall time
(the report's ``duration_ms``) is printed. The CPU figure is the one that holds on a busy
machine; the wall figure is what a learner waits for.

    .venv/bin/python tests/bench/exercise_grading.py              # this checkout
    .venv/bin/python tests/bench/exercise_grading.py /tmp/before  # another tree (git archive REV)
    .venv/bin/python tests/bench/exercise_grading.py --only 1-11    # some exercises (numbers, ids)

To compare two trees, run both in the same minutes (the machine's load moves the wall figures).
"""

import os
import resource
import statistics
import sys
from pathlib import Path

ARGS = sys.argv[1:]
ONLY = ARGS[ARGS.index("--only") + 1] if "--only" in ARGS else ""
ARGS = [a for a in ARGS if a not in ("--only", ONLY)]
TREE = Path(ARGS[0]).resolve() if ARGS else Path(__file__).resolve().parents[2]
sys.path[:0] = [str(TREE / "exercises"), str(TREE)]

from harness import catalog  # noqa: E402
from harness.grade import grade, reference_outcomes  # noqa: E402

RUNS = 5


def selected(exercise) -> bool:
    """``--only 1-11,gradcheck``: numbers, ranges of numbers and ids; everything without it."""
    if not ONLY:
        return True
    for part in ONLY.split(","):
        lo, _, hi = part.partition("-")
        if part == exercise.id or (lo.isdigit() and int(lo) <= exercise.number <= int(hi or lo)):
            return True
    return False


def main() -> None:
    print(f"tree {TREE}, backend {os.environ.get('KAEL_BACKEND', 'default')}, load {os.getloadavg()[0]:.1f}")
    for exercise in filter(selected, catalog.load_all()):
        reference_outcomes(exercise)
        cpu, wall, verdicts = [], [], set()
        for _ in range(RUNS):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            report = grade(exercise, exercise.reference_source(), known_mistakes=False, trace=False)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            wall.append(report["duration_ms"] / 1000)
            verdicts.add(report["verdict"])
        print(f"{exercise.dirname:26s} cpu p50 {statistics.median(cpu):5.2f} s   "
              f"wall p50 {statistics.median(wall):5.2f} s   {'/'.join(sorted(verdicts))}", flush=True)


if __name__ == "__main__":
    main()
