"""Feedback that names the mistake, as a learner sees it: a wrong backward engine submitted to
the judge gets the known-mistake message and the trace view (its run of the first failing public
case beside the reference's, the first differing step marked)."""

from __future__ import annotations

import re
import sys

from playwright.sync_api import Page, expect

from .conftest import REPO
from .test_playground import set_code

sys.path.insert(0, str(REPO / "exercises"))
from harness import catalog  # noqa: E402

EXERCISE = "backward-engine"


def test_a_known_mistake_and_the_trace_view_under_the_judges_report(app: Page, screenshots):
    code = catalog.find(EXERCISE).mutants()["overwrite_buffers"]
    app.get_by_role("tab", name="Exercises").click()
    app.locator(f'.exercise-item[data-id="{EXERCISE}"]').click()
    set_code(app, code)
    app.get_by_role("button", name="Submit", exact=True).click()
    report = app.get_by_test_id("report-server")
    expect(report.locator(".verdict")).to_have_attribute("data-verdict", "Wrong Answer", timeout=180_000)

    mistakes = report.get_by_test_id("mistakes")
    expect(mistakes).to_contain_text("This looks like a known mistake")
    expect(mistakes.locator("li")).to_have_attribute("data-mutant", "overwrite_buffers")
    expect(mistakes.locator("code").first).to_have_text("x")  # inline code is an element, not text

    trace = report.get_by_test_id("trace-diff")
    expect(trace).to_contain_text(re.compile(r"Trace of test_\w+"))
    first = trace.locator("tr.diverges")
    expect(first).to_have_count(1)
    expect(first.locator("td.yours")).to_contain_text("AccumulateGrad(x)")
    expect(first.locator("td.reference")).to_contain_text("AccumulateGrad(x)")
    step = first.get_attribute("data-step")
    expect(trace).to_contain_text(f"step {step} is the first that differs")
    expect(trace.locator("tr.agrees")).to_have_count(int(step) - 1)
    trace.scroll_into_view_if_needed()
    app.screenshot(path=screenshots / "exercise-known-mistake-trace.png")
