"""What a hostile submission can learn per submission (issue 17.3), measured: the learner's
report as a function of everything the full run (the one with hidden tests) can choose.

The full run can read the hidden tests, so it can encode them into anything of its own that
reaches the learner: each hidden test's outcome, each public test's outcome in that run, the
verdict, the time it takes. The public report must depend on those only through the verdict,
the number of hidden tests passed, the first that did not pass and a coarse time bucket."""

from __future__ import annotations

import itertools
import json
import math
import random

import pytest

from server.grading.report import REVEAL_AT, public_report, reveal_delay

H = 8  # hidden tests
PUBLIC = ["test_p0", "test_p1"]
VERDICTS = ["Accepted", "Wrong Answer", "Runtime Error", "Time Limit Exceeded", "Memory Limit Exceeded"]


def full_run(hidden_bits, public_statuses, verdict):
    tests = [{"name": name, "status": status, "hidden": False, "description": name,
              "message": f"full-run message {status}", "duration_ms": 12.5}
             for name, status in zip(PUBLIC, public_statuses)]
    tests += [{"name": f"test_h{i}", "status": "passed" if bit else random.choice(["failed", "error"]),
               "hidden": True, "description": "secret", "message": "secret", "duration_ms": 99.0}
              for i, bit in enumerate(hidden_bits)]
    return {"verdict": verdict, "message": "full-run message", "tests": tests, "output": "full output",
            "syntax_error": None, "backend": "python"}


PUBLIC_RUN = {"verdict": "Wrong Answer", "message": "test_p1: returned 2, expected 3", "output": "printed",
              "tests": [{"name": "test_p0", "status": "passed", "hidden": False, "description": "d0",
                         "message": "", "duration_ms": 1.0},
                        {"name": "test_p1", "status": "failed", "hidden": False, "description": "d1",
                         "message": "returned 2, expected 3", "duration_ms": 2.0}]}


def shown(report) -> str:
    return json.dumps(report, sort_keys=True)


def test_the_status_channel_carries_at_most_the_count_and_the_first_failure():
    random.seed(0)
    reports = set()
    per_key: dict = {}
    for bits in itertools.product([0, 1], repeat=H):
        for public_statuses in itertools.product(["passed", "failed", "error"], repeat=len(PUBLIC)):
            for verdict in VERDICTS[1:]:
                report = shown(public_report(full_run(bits, public_statuses, verdict), PUBLIC_RUN))
                reports.add(report)
                first = bits.index(0) if 0 in bits else None
                per_key.setdefault((verdict, sum(bits), first), set()).add(report)
    # The report is a function of (verdict, count passed, first failure) alone...
    assert all(len(r) == 1 for r in per_key.values())
    # ... so the full run's statuses give at most log2 of that many values.
    bits_per_submission = math.log2(len(reports))
    bound = math.log2(len(VERDICTS) - 1) + 2 * math.log2(H + 1)
    print(f"status channel: {len(reports)} distinct reports over 2^{H} hidden patterns x "
          f"{3 ** len(PUBLIC)} public patterns x {len(VERDICTS) - 1} verdicts = "
          f"{bits_per_submission:.2f} bits (bound {bound:.2f}; a status per test would be {H + len(PUBLIC) * 1.58:.1f})")
    assert bits_per_submission <= bound


def test_public_tests_show_the_public_runs_outcome_not_the_full_runs():
    a = public_report(full_run([1] * H, ["passed", "passed"], "Wrong Answer"), PUBLIC_RUN)
    b = public_report(full_run([1] * H, ["error", "failed"], "Wrong Answer"), PUBLIC_RUN)
    assert a == b
    assert [t["status"] for t in a["tests"]] == ["passed", "failed"]
    assert "full-run" not in shown(a) and "secret" not in shown(a) and "full output" not in shown(a)


@pytest.mark.parametrize("elapsed", [0.0, 0.01, 0.49, 0.5, 0.51, 1.7, 3.99, 7.2, 15.0, 31.9, 32.0, 40.0])
def test_the_time_to_a_verdict_is_rounded_up_to_a_bucket(elapsed):
    published = elapsed + reveal_delay(elapsed)
    assert published >= elapsed
    assert published in REVEAL_AT or (elapsed > REVEAL_AT[-1] and published == elapsed)


def test_the_timing_channel_is_at_most_three_bits():
    random.seed(1)
    published = {round(t + reveal_delay(t), 9) for t in (random.uniform(0, 32) for _ in range(10_000))}
    assert len(published) <= len(REVEAL_AT)
    print(f"timing channel: {len(published)} distinct publication times = {math.log2(len(published)):.2f} bits")


def test_a_time_out_names_its_limit_in_fixed_words():
    """A full run stopped by a time limit says which (its CPU budget, or the wall clock with CPU
    to spare), and nothing else of its own: not the CPU seconds nor the clock's, which it could
    choose. That is one bit more than the verdict alone (the README's table)."""
    from harness.report import time_limit_message

    said = set()
    for limit in ("cpu", "wall", None):
        for cpu_s, duration_s in ((0.0, 30.1), (1.234, 31.7), (9.9, 45.0)):
            full = full_run([1] * H, ["passed", "passed"], "Time Limit Exceeded")
            full["message"] = time_limit_message(limit, cpu_s, duration_s, 10)
            said.add(public_report(full, PUBLIC_RUN)["message"])
    assert said == {
        "the program used all of its CPU time without finishing",
        "the program was stopped by the wall clock with CPU time to spare: it was waiting (a sleep, "
        "input, a lock), not computing",
        "the program did not finish within the time limit",
    }
