"""Cost of the sandbox per run (a benchmark: it reports, asserts nothing).

Runs a trivial program N times three ways, interleaved, and prints p50/p95 and the overhead
against the bare interpreter measured in the same run:

* bare: ``python -I -S -B main.py`` as a plain subprocess (the reference);
* sandbox: the judge's full sandbox (cgroup, tmpfs, prlimit, bwrap with seccomp, setpriv);
* sandbox, no seccomp and no cgroup: the same without those two layers, to isolate their cost;
* kael: a program that imports kael, in the sandbox, and the same with an exercise's rules
  (``job.json`` switching ``sum_to`` off: the per-exercise kael copy, one process only), to show
  what the copy costs a run; these print their own CPU time (user + system), reported as well.

    .venv/bin/python tests/bench/sandbox.py -n 60      (root: the sandbox needs it)
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from server.core.config import load_settings  # noqa: E402
from server.grading import sandbox  # noqa: E402
from server.grading.harness import Limits  # noqa: E402
from server.grading.runners import make_runner_factory  # noqa: E402

PROGRAM = "import json, os\nprint(json.dumps(sorted(os.environ)))\n"
KAEL_PROGRAM = ("import json, resource, sys\nsys.path.insert(0, '/opt/kael')\nimport kael\n"
                "r = resource.getrusage(resource.RUSAGE_SELF)\n"
                "print(json.dumps({'cpu_ms': (r.ru_utime + r.ru_stime) * 1000}))\n")


class NoFilterNoCgroup(sandbox.SandboxRunner):
    def bwrap_args(self, *a, **kw):
        args = super().bwrap_args(*a, **kw)
        at = args.index("--seccomp")
        return args[:at] + args[at + 2:]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=60)
    n = parser.parse_args().n
    runner = make_runner_factory(replace(load_settings(), sandbox_uid_base=63000))(0)
    plain = NoFilterNoCgroup(uid=runner.uid, root=runner.root, private=runner.private, cgroups=None)
    task = runner.make_task_dir()
    (task / "main.py").write_text(PROGRAM)
    runner.seal_task_dir(task)
    limits = Limits(time_s=10, memory_mb=256)
    python = os.path.realpath(sys.executable)
    kael_tasks = {"sandbox, import kael": _task(runner, None),
                  "sandbox, import kael, rules (kael copy)": _task(runner, {"switch_off": ["sum_to"]})}
    times = {"bare": [], "sandbox": [], "sandbox without seccomp and cgroup": [], **{k: [] for k in kael_tasks}}
    cpu = {k: [] for k in kael_tasks}
    for _ in range(n):
        start = time.perf_counter()
        subprocess.run([python, "-I", "-S", "-B", str(task / "main.py")], capture_output=True, check=True)
        times["bare"].append(time.perf_counter() - start)
        for name, r in (("sandbox", runner), ("sandbox without seccomp and cgroup", plain)):
            start = time.perf_counter()
            result = r.run(task, ["main.py"], limits)
            times[name].append(time.perf_counter() - start)
            assert result.exit_code == 0, result.stderr
        for name, kael_task in kael_tasks.items():
            start = time.perf_counter()
            result = runner.run(kael_task, ["main.py"], limits)
            times[name].append(time.perf_counter() - start)
            assert result.exit_code == 0, result.stderr
            cpu[name].append(json.loads(result.stdout.decode().splitlines()[-1])["cpu_ms"])
    for t in (task, *kael_tasks.values()):
        subprocess.run(["rm", "-rf", str(t)], check=False)
    bare = statistics.median(times["bare"])
    print(f"{n} runs each, cgroups: {runner.cgroups.describe() if runner.cgroups else 'none'}")
    for name, values in times.items():
        values.sort()
        p50, p95 = statistics.median(values), values[int(0.95 * (len(values) - 1))]
        inside = f"  child CPU p50 {statistics.median(cpu[name]):5.1f} ms" if name in cpu else ""
        print(f"{name:40s} p50 {p50 * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms  "
              f"x{p50 / bare:4.2f} of bare (+{(p50 - bare) * 1000:5.1f} ms){inside}")


def _task(runner, rules):
    task = runner.make_task_dir()
    (task / "main.py").write_text(KAEL_PROGRAM)
    if rules is not None:
        (task / "job.json").write_text(json.dumps({"rules": rules}))
    runner.seal_task_dir(task)
    return task


if __name__ == "__main__":
    main()
