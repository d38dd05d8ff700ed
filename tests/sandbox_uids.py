"""Sandbox uids for the tests: every test server or runner gets 16 uids of its own.

A sandbox slot is a uid, and a uid is shared kernel state: its process count (RLIMIT_NPROC) and
the processes a test looks for when it checks that nothing was left running. Two test servers
with the same uids at the same time would see each other's runs. So the uids are handed out, not
drawn at random:

* a **range** per test process, held with a lock file for the process's life
  (``/tmp/kael-test-uids/<lane>-<range>.lock``): two copies of the suite on one machine (a CI
  run beside another, or beside a pytest run by hand) take different ranges. One CI run's lanes
  that run at the same time have their own (``KAEL_TEST_LANE``: 0 numpy, 1 python; default 0);
* within the range, a counter that starts at the process id (so one process never gets the same
  uids twice while it holds fewer than 100 servers).

All of them are away from the 60000 of a real server.
"""

from __future__ import annotations

import fcntl
import itertools
import os

FIRST = 61000
SLOTS = 16  # uids per server or runner
PER_LANE = 100  # servers or runners a lane may hold at once (the counter wraps after this)
LANES = 2
RANGES = 8  # copies of the suite that may run side by side
LOCKS = "/tmp/kael-test-uids"

_next = itertools.count()
_range: list = []  # [range index, the open lock file that holds it]


def _my_range(lane: int) -> int:
    if not _range:
        os.makedirs(LOCKS, exist_ok=True)
        for index in range(RANGES):
            f = open(os.path.join(LOCKS, f"{lane}-{index}.lock"), "w")
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()  # another copy of the suite holds it
                continue
            _range[:] = [index, f]  # kept open: the lock lasts as long as this process
            break
        else:
            raise RuntimeError(f"all {RANGES} ranges of test sandbox uids are taken ({LOCKS})")
    return _range[0]


def uid_base() -> int:
    """The first of 16 uids no other test server of any running lane or copy of the suite uses."""
    lane = int(os.environ.get("KAEL_TEST_LANE", "0"))
    block = (_my_range(lane) * LANES + lane) * PER_LANE + (os.getpid() + next(_next)) % PER_LANE
    return FIRST + SLOTS * block
