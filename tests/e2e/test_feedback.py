"""Feedback that names the mistake, as a learner sees it: a wrong backward engine submitted to
the judge gets the known-mistake message and the trace view (its run of the first failing public
case beside the reference's, the first differing step marked)."""

from __future__ import annotations

import json
import re
import sys

from playwright.sync_api import Page, expect

from .conftest import REPO
from .test_playground import set_code

sys.path.insert(0, str(REPO / "exercises"))
from harness import catalog  # noqa: E402

EXERCISE = "backward-engine"


def _feedback(app: Page, kind: str, mutant: str, heading: str, timeout: int):
    """The report of kind ``local`` (Run tests) or ``server`` (Submit): a Wrong Answer that names
    ``mutant`` under ``heading``; returns its mistakes box, its trace view and the diverging row."""
    report = app.get_by_test_id(f"report-{kind}")
    expect(report.locator(".verdict")).to_have_attribute("data-verdict", "Wrong Answer", timeout=timeout)
    mistakes = report.get_by_test_id("mistakes")
    expect(mistakes).to_contain_text(heading)
    expect(mistakes.locator("li")).to_have_attribute("data-mutant", mutant)
    trace = report.get_by_test_id("trace-diff")
    first = trace.locator("tr.diverges")
    expect(first).to_have_count(1)
    return mistakes, trace, first


def _shown(message: str) -> str:
    """An authored message as the page shows it: `code` and **bold** are elements."""
    return message.replace("`", "").replace("**", "")


def _open_exercise(app: Page, exercise: str, code: str) -> None:
    """Open the exercise, wait for its starter to be in the editor (opening is asynchronous: a
    starter arriving later would land in the code), then put ``code`` there, whole."""
    app.get_by_role("tab", name="Exercises").click()
    app.locator(f'.exercise-item[data-id="{exercise}"]').click()
    expect(app.locator(".cm-content")).to_contain_text("NotImplementedError")  # the starter
    set_code(app, code)
    expect(app.locator(".editor-position")).to_have_attribute("data-line", str(code.count("\n") + 1))


def test_a_known_mistake_and_the_trace_view_under_the_judges_report(app: Page, screenshots):
    _open_exercise(app, EXERCISE, catalog.find(EXERCISE).mutants()["overwrite_buffers"])
    app.get_by_role("button", name="Submit", exact=True).click()
    mistakes, trace, first = _feedback(app, "server", "overwrite_buffers", "This looks like a known mistake", 180_000)
    expect(mistakes.locator("code").first).to_have_text("x")  # inline code is an element, not text
    expect(trace).to_contain_text(re.compile(r"Trace of test_\w+"))
    expect(first.locator("td.yours")).to_contain_text("AccumulateGrad(x)")
    expect(first.locator("td.reference")).to_contain_text("AccumulateGrad(x)")
    step = first.get_attribute("data-step")
    expect(trace).to_contain_text(f"step {step} is the first that differs")
    expect(trace.locator("tr.agrees")).to_have_count(int(step) - 1)
    trace.scroll_into_view_if_needed()
    app.screenshot(path=screenshots / "exercise-known-mistake-trace.png")


def test_run_tests_in_the_browser_names_the_known_mistake_and_draws_the_trace(app: Page, screenshots):
    """The browser's own run (Pyodide, public tests only, no judge) shows the same feedback as the
    judge's report, from the public data the build exports: a deep-chain walk that takes the
    first level a node is reached at is named, and its trace marks the node where depth is wrong."""
    app.set_viewport_size({"width": 1400, "height": 900})
    _open_exercise(app, "deep-chain", catalog.find("deep-chain").mutants()["first_reached_level"])
    app.get_by_role("button", name="Run tests", exact=True).click()
    mistakes, trace, first = _feedback(app, "local", "first_reached_level", "This looks like a known mistake", 60_000)
    expect(mistakes.locator("strong")).to_have_text("longest")  # **bold** is an element, not text
    texts = json.loads((catalog.find("deep-chain").path / ".meta" / "mistakes.json").read_text(encoding="utf-8"))
    expect(mistakes.locator("li")).to_have_text(_shown(texts["first_reached_level"]["en"]))
    expect(trace).to_contain_text("Trace of test_short_and_long_path")
    expect(trace).to_contain_text("step 4 is the first that differs")
    expect(first).to_have_attribute("data-step", "4")
    expect(first.locator("td.yours .trace-node")).to_have_text("AddBackward")
    expect(first.locator("td.yours .differs")).to_have_text("depth() 3")
    expect(first.locator("td.reference .differs")).to_have_text("depth() 4")
    expect(first.locator("td.yours")).to_contain_text("child ExpBackward: count_nodes 3, depth 3")
    expect(trace.locator("tr.agrees")).to_have_count(3)
    first.scroll_into_view_if_needed()
    app.screenshot(path=screenshots / "exercise-run-tests-known-mistake-trace.png")


def test_run_tests_feedback_in_chinese_for_a_wrong_engine(app: Page):
    """The in-browser run of a wrong backward engine, page in Chinese: the known mistake in
    Chinese and the trace at the leaf whose gradient was overwritten."""
    messages = json.loads((catalog.find(EXERCISE).path / ".meta" / "mistakes.json").read_text(encoding="utf-8"))
    _open_exercise(app, EXERCISE, catalog.find(EXERCISE).mutants()["overwrite_buffers"])
    app.get_by_role("button", name="切换到中文").click()
    app.get_by_role("button", name="运行测试", exact=True).click()
    mistakes, trace, first = _feedback(app, "local", "overwrite_buffers", "这看起来是一个常见错误", 60_000)
    expect(mistakes.locator("li")).to_have_text(_shown(messages["overwrite_buffers"]["zh"]))
    expect(trace).to_contain_text(re.compile(r"第 \d+ 步是第一个不同的步骤"))
    expect(first.locator("td.yours .trace-node")).to_have_text("AccumulateGrad(x)")
    expect(first.locator("td.reference .trace-node")).to_have_text("AccumulateGrad(x)")
    expect(first.locator("td.yours .differs")).to_have_count(1)  # the leaf's .grad: overwritten, not summed
