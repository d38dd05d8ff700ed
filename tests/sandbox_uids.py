"""Sandbox uids for the tests: every test server or runner gets 16 uids of its own.

A sandbox slot is a uid, and a uid is shared kernel state: its process count (RLIMIT_NPROC) and
the processes a test looks for when it checks that nothing was left running. Two test servers
with the same uids at the same time would see each other's runs. So the uids are handed out, not
drawn at random: a range of its own for each lane that ``make test`` runs at the same time as
another (``KAEL_TEST_LANE``: 0 numpy, 1 python; the default is 0), and within it a counter that
starts at the process id (so one process never gets the same uids twice while it holds fewer
than 100 servers, and a pytest run by hand beside CI most likely starts elsewhere). All of them
are away from the 60000 of a real server.
"""

from __future__ import annotations

import itertools
import os

FIRST = 61000
SLOTS = 16  # uids per server or runner
PER_LANE = 100  # servers or runners a lane may hold at once (the counter wraps after this)

_next = itertools.count()


def uid_base() -> int:
    """The first of 16 uids no other test server of any running lane uses now."""
    lane = int(os.environ.get("KAEL_TEST_LANE", "0"))
    return FIRST + SLOTS * (lane * PER_LANE + (os.getpid() + next(_next)) % PER_LANE)
