"""Which system calls graded runs make inside the sandbox: the evidence for seccomp.ALLOWED.

    .venv/bin/python tests/server/syscalls_used.py [exercise id ...]

grades every reference, starter, mutant and variant (of the exercises named, or all) in the
real sandbox under ``strace -f`` (root, outside the sandbox), keeps the calls each process makes
after bwrap installs the filter, and prints each call with its count, marking those the filter
does not allow. Needs root, bubblewrap and strace (Debian: strace). Slow: strace costs each run
a few times its time (all exercises: about 40 minutes on 2 cores)."""

from __future__ import annotations

import collections
import re
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT, ROOT / "exercises", ROOT / "tests" / "exercises", ROOT / "tests"):
    sys.path.insert(0, str(path))

from exercise_support import SUBMISSIONS  # noqa: E402
from harness.grade import grade  # noqa: E402
from harness.runner import Limits  # noqa: E402
from sandbox_uids import uid_base  # noqa: E402

from server.core.config import load_settings  # noqa: E402
from server.grading import sandbox, seccomp  # noqa: E402
from server.grading.runners import make_runner_factory  # noqa: E402

CALL = re.compile(r"^([a-z_0-9]+)\(")
HOST_TOOLS = ('execve("/usr/bin/unshare', 'execve("/bin/sh', 'execve("/usr/bin/sh', 'execve("/usr/bin/bwrap')


class Traced(sandbox.SandboxRunner):
    out: Path = Path()

    def command(self, args_fd, program):
        return ["strace", "-f", "-ff", "-qq", "-o", str(self.out / "run"), *super().command(args_fd, program)]


def calls_after_filter(lines: list[str]) -> list[str]:
    """The calls of one process once it is under the filter: after bwrap's PR_SET_SECCOMP, or
    all of them for a process the filtered one started (it never ran a host tool)."""
    start = next((i + 1 for i, line in reversed(list(enumerate(lines))) if "SECCOMP_MODE_FILTER" in line), None)
    if start is None:
        if any(line.startswith(HOST_TOOLS) or line.startswith("mount(") for line in lines):
            return []
        start = 0
    return [m.group(1) for line in lines[start:] if (m := CALL.match(line))]


def main(only: list[str]) -> None:
    base = make_runner_factory(replace(load_settings(), sandbox_uid_base=uid_base()))(0)
    runner = Traced(uid=base.uid, root=base.root, private=base.private, cgroups=base.cgroups, trees=base.trees)
    runner.out = Path(tempfile.mkdtemp(prefix="kael-syscalls-"))
    limits = Limits(time_s=120.0, memory_mb=1024)
    for ex, kind, name, source in SUBMISSIONS:
        if not only or ex in only:
            report = grade(ex, source, runner=runner, limits=limits, env={}, known_mistakes=False, trace=False)
            print(f"{ex} {kind} {name}: {report.get('verdict')}", flush=True)
    counts = collections.Counter()
    for trace in runner.out.iterdir():
        counts.update(calls_after_filter(trace.read_text(errors="replace").splitlines()))
    allowed = set(seccomp.ALLOWED) | {"clone"}
    for call, n in sorted(counts.items()):
        print(f"{call:24} {n:8}  {'' if call in allowed else 'NOT ALLOWED'}")
    print("traces in", runner.out)


if __name__ == "__main__":
    main(sys.argv[1:])
