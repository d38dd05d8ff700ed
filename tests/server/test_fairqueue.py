"""The grading queue's fairness (issue 17.4), on a fake clock: round robin across clients,
a cap on each client's running slots and on its wall time per minute."""

from __future__ import annotations

import random
import threading

import pytest

from server.grading.fairqueue import FairQueue


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def take(q, n):
    return [q.get() for _ in range(n)]


def test_a_clients_second_submission_waits_behind_everyone_elses_first():
    q = FairQueue(workers=8, max_running=8, clock=Clock())
    for i in range(4):
        q.put(f"sleeper-{i}", "sleeper")
    q.put("honest", "honest")
    q.put("other", "other")
    order = [item for item, _ in take(q, 6)]
    assert order == ["sleeper-0", "honest", "other", "sleeper-1", "sleeper-2", "sleeper-3"]


def test_one_client_never_holds_more_than_its_share_of_slots():
    q = FairQueue(workers=2, clock=Clock())  # share: 1 slot of 2
    for i in range(4):
        q.put(f"sleeper-{i}", "sleeper")
    assert q.get() == ("sleeper-0", "sleeper")
    q.put("honest", "honest")
    assert q.get() == ("honest", "honest")  # not sleeper-1: sleeper already holds its one slot
    got = []
    t = threading.Thread(target=lambda: got.append(q.get()))
    t.start()
    t.join(0.2)
    assert t.is_alive() and not got  # sleeper-1 waits although a slot is free
    q.done("sleeper", 10.0)
    t.join()
    assert got == [("sleeper-1", "sleeper")]


def test_wall_time_budget_per_minute():
    clock = Clock()
    q = FairQueue(workers=4, max_running=4, wall_seconds_per_minute=30, clock=clock)
    q.put("a", "c")
    q.put("b", "c")
    assert q.get() == ("a", "c")
    q.done("c", 31.0)  # used its budget
    assert q._eligible() == (None, 60.0)
    clock.now += 59.0
    assert q._eligible()[0] is None
    clock.now += 1.5  # the run aged out of the window
    assert q.get() == ("b", "c")


def test_stop_wakes_waiting_workers():
    q = FairQueue(workers=2, clock=Clock())
    results = []
    threads = [threading.Thread(target=lambda: results.append(q.get())) for _ in range(2)]
    for t in threads:
        t.start()
    q.stop(2)
    for t in threads:
        t.join()
    assert results == [(None, None), (None, None)]


@pytest.mark.parametrize("seed", range(20))
def test_random_schedules_keep_order_within_a_client_and_never_exceed_the_caps(seed):
    rng = random.Random(seed)
    clients = [f"c{i}" for i in range(rng.randint(1, 5))]
    workers = rng.randint(1, 4)
    q = FairQueue(workers=workers, clock=Clock())
    submitted = {c: [] for c in clients}
    for i in range(rng.randint(1, 40)):
        c = rng.choice(clients)
        submitted[c].append(i)
        q.put(i, c)
    running, seen = {}, {c: [] for c in clients}
    while len(q):
        eligible, _ = q._eligible()
        if eligible is None:  # everyone at the cap: finish one run
            c = rng.choice([c for c, n in running.items() if n])
            running[c] -= 1
            q.done(c, 0.1)
            continue
        item, c = q.get()
        running[c] = running.get(c, 0) + 1
        assert running[c] <= q.max_running
        seen[c].append(item)
    assert seen == submitted
