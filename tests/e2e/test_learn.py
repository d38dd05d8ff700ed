"""The Learn tab (web/src/learn/, lessons in web/lessons/): a learner's path through the first
lesson (a question's answer, a cell run with its output matched, the cell opened in the editor
with its graph, the lesson's exercise opened, its public tests run and the judge's Accepted),
progress on the course map kept across a reload; the same progress in a new browser that takes
the learner key (kept on the judge, server/progress.py), and back; an exercise's hints one at a
time; every lesson at 1440x900 and 390x844 in both languages; axe on the Learn tab."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from playwright.sync_api import Page, expect

from .conftest import REPO, PageWatch
from .test_a11y import axe_violations

LESSONS = sorted(p.name for p in (REPO / "web" / "lessons").iterdir() if (p / "lesson.json").is_file())
GRAPH_WALK = REPO / "exercises" / "01-graph-walk"


def shots(screenshots: Path) -> Path:
    folder = Path(os.environ.get("KAEL_LEARN_SHOTS", screenshots))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def set_code(page: Page, code: str) -> None:
    page.get_by_role("textbox", name="Python code").click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code)


def open_learn(page: Page) -> None:
    page.get_by_role("tab", name=re.compile("^(Learn|学习)$")).click()


def lesson_progress(page: Page, lesson: str):
    return page.get_by_test_id(f"progress-{lesson}")


def test_a_learners_path_through_the_first_lesson_is_kept_across_a_reload(app: Page, screenshots):
    first = LESSONS[0]
    open_learn(app)
    progress = lesson_progress(app, first)
    expect(progress.locator('[data-progress="read"]')).to_have_text("not read")
    expect(progress.locator('[data-progress="cells"]')).to_have_text("cells 0/3")
    expect(progress.locator('[data-progress="passed"]')).to_have_text("public tests 0/2")
    app.locator(f'.lesson-item[data-lesson="{first}"]').click()
    expect(app.get_by_role("heading", level=2, name="The recorded graph")).to_be_visible()

    # A self-test question: its answer is hidden until asked for.
    question = app.locator(".question").first
    answer = question.locator(".answer")
    expect(answer).to_be_hidden()
    question.get_by_role("button", name="Show the answer").click()
    expect(answer).to_be_visible()
    expect(answer).to_contain_text("SumBackward")
    expect(question.get_by_role("button", name="Hide the answer")).to_have_attribute("aria-expanded", "true")

    # A cell run in the worker: its output beside the expected one, and matched.
    cell = app.locator('.cell[data-cell="walk"]')
    expected = (REPO / "web" / "lessons" / first / "cells" / "walk.out").read_text(encoding="utf-8").strip()
    expect(cell.get_by_test_id("cell-expected")).to_have_text(expected)
    cell.get_by_role("button", name=re.compile("^Run · Cell 1")).click()
    expect(cell.get_by_test_id("cell-verdict")).to_have_attribute("data-result", "matched", timeout=60_000)
    expect(cell.get_by_test_id("cell-yours")).to_have_text(expected)
    cell.scroll_into_view_if_needed()
    app.screenshot(path=shots(screenshots) / "learn-path-cell-run.png")

    # One click to the editor: the cell runs there and the Graph tab draws it.
    cell.get_by_role("button", name=re.compile("^Open in editor · Cell 1")).click()
    expect(app.locator(".cm-content")).to_contain_text("kael.viz.show(y")
    expect(app.get_by_role("tab", name="Graph")).to_have_attribute("aria-selected", "true", timeout=60_000)
    expect(app.get_by_role("button", name=re.compile("^MulBackward, .*self \\[3\\] 12 B"))).to_be_visible()
    app.screenshot(path=shots(screenshots) / "learn-path-open-in-editor.png")

    app.get_by_role("button", name="Mark this lesson as read").click()
    expect(app.get_by_role("button", name=re.compile("^✓ Read"))).to_have_attribute("aria-pressed", "true")

    # The lesson's exercise: opened from the lesson, its public tests run (the reference passes).
    app.locator('.exercise-link[data-exercise="graph-walk"]').click()
    expect(app.get_by_role("heading", level=2, name=re.compile("Walk the graph"))).to_be_visible()
    set_code(app, (GRAPH_WALK / ".meta" / "reference.py").read_text(encoding="utf-8"))
    app.get_by_role("button", name="Run tests", exact=True).click()
    expect(app.get_by_test_id("report-local").locator(".verdict")).to_have_attribute(
        "data-verdict", "Accepted", timeout=60_000)
    app.get_by_role("button", name="Submit", exact=True).click()
    expect(app.get_by_test_id("report-server").locator(".verdict")).to_have_attribute(
        "data-verdict", "Accepted", timeout=120_000)

    def check_map() -> None:
        open_learn(app)
        back = app.get_by_role("button", name="← All lessons")
        if back.count():
            back.click()
        progress = lesson_progress(app, first)
        expect(progress.locator('[data-progress="read"]')).to_have_text("read")
        expect(progress.locator('[data-progress="cells"]')).to_have_text("cells 1/3")
        expect(progress.locator('[data-progress="passed"]')).to_have_text("public tests 1/2")
        expect(progress.locator('[data-progress="accepted"]')).to_have_text("accepted 1/2")

    check_map()
    app.screenshot(path=shots(screenshots) / "learn-path-map.png")
    app.reload()
    expect(app.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    check_map()
    stored = json.loads(app.evaluate("localStorage.getItem('kael.learn.progress')"))
    assert {k: v for k, v in stored["lessons"][first].items() if k != "read_at"} == {
        "read": True, "cells": {"walk": "matched"}}


def test_hints_are_revealed_one_at_a_time_and_remembered(app: Page):
    total = len(re.findall(r"^[*-] ", (GRAPH_WALK / ".docs" / "hints.md").read_text(encoding="utf-8"), re.M))
    app.get_by_role("tab", name="Exercises").click()
    app.locator('.exercise-item[data-id="graph-walk"]').click()
    hints = app.locator("section.hints")
    expect(hints.locator(".hint")).to_have_count(0)
    expect(hints.get_by_role("button", name=f"Show hint 1 of {total}")).to_be_visible()
    hints.get_by_role("button", name=f"Show hint 1 of {total}").click()
    expect(hints.locator(".hint")).to_have_count(1)
    expect(hints.locator(".hint").first).to_contain_text("None")
    expect(hints).to_contain_text(f"1 of {total} hints shown.")
    hints.get_by_role("button", name=f"Show hint 2 of {total}").click()
    expect(hints.locator(".hint")).to_have_count(2)

    app.reload()
    expect(app.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    hints = app.locator("section.hints")
    expect(hints.locator(".hint")).to_have_count(2)  # the exercise reopens with the hints asked for
    expect(hints.get_by_role("button", name=f"Show hint 3 of {total}")).to_be_visible()
    assert json.loads(app.evaluate("localStorage.getItem('kael.learn.progress')"))["hints"] == {"graph-walk": 2}


def test_every_lesson_at_two_sizes_in_both_languages(app: Page, screenshots):
    folder = shots(screenshots)
    open_learn(app)
    for width, height in ((1440, 900), (390, 844)):
        app.set_viewport_size({"width": width, "height": height})
        for lang in ("en", "zh"):
            if app.evaluate("document.documentElement.lang").startswith("zh") != (lang == "zh"):
                app.get_by_role("button", name=re.compile("^(切换到中文|Switch to English)$")).click()
            back = app.locator(".learn .back")
            if back.count():
                back.click()
            app.locator(".learn").screenshot(path=folder / f"learn-map-{lang}-{width}.png")
            for lesson in LESSONS:
                app.locator(f'.lesson-item[data-lesson="{lesson}"]').click()
                # The lesson opens at its top, not where the map was scrolled to (a phone scrolls the page).
                expect(app.locator(".lesson-heading")).to_be_in_viewport()
                cell = app.locator(".cell").first
                expect(cell).to_be_visible()
                expect(app.locator(".lesson-body .katex").first).to_be_visible()
                if cell.get_by_test_id("cell-verdict").get_attribute("data-result") != "matched":
                    cell.locator("button.cell-run").click()
                    expect(cell.get_by_test_id("cell-verdict")).to_have_attribute("data-result", "matched", timeout=60_000)
                app.screenshot(path=folder / f"lesson-{lesson}-{lang}-{width}.png")
                cell.scroll_into_view_if_needed()
                app.screenshot(path=folder / f"lesson-{lesson}-{lang}-{width}-cell.png")
                app.locator(".learn .back").click()


def test_the_learn_tab_has_no_serious_accessibility_violations(page: Page, watch, base_url):
    problems = []
    for lang, theme in (("en", "light"), ("en", "dark"), ("zh", "light"), ("zh", "dark")):
        page.add_init_script(f"localStorage.setItem('kael.lang', '{lang}'); localStorage.setItem('kael.theme', '{theme}');"
                             " localStorage.removeItem('kael.learn.lesson')")  # the course map, not the last lesson
        page.goto(base_url + "/")
        expect(page.locator("button.run")).to_be_enabled(timeout=120_000)
        open_learn(page)
        problems += axe_violations(page, f"{lang}-{theme} course map")
        page.locator(f'.lesson-item[data-lesson="{LESSONS[0]}"]').click()
        page.locator(".answer-toggle").first.click()
        cell = page.locator(".cell").first
        cell.locator("button.cell-run").click()
        expect(cell.get_by_test_id("cell-verdict")).to_have_attribute("data-result", "matched", timeout=60_000)
        expect(page.locator(".lesson-body .katex").first).to_be_visible()
        problems += axe_violations(page, f"{lang}-{theme} lesson")
    assert not problems, "\n".join(problems)


def judge_progress(page: Page, base_url: str) -> dict:
    token = json.loads(page.evaluate("localStorage.getItem('kael.client')"))["token"]
    answer = page.request.get(f"{base_url}/api/progress", headers={"X-Client-Token": token})
    assert answer.ok, answer.text()
    return answer.json()


def wait_for_judge(page: Page, base_url: str, done, what: str) -> dict:
    """The page pushes its progress debounced (web/src/learn/sync.ts): wait until the judge has it."""
    deadline = time.monotonic() + 60
    while True:
        kept = judge_progress(page, base_url)
        if done(kept):
            return kept
        assert time.monotonic() < deadline, f"the judge never had {what}: {kept}"
        page.wait_for_timeout(250)


def check_first_lesson_on_the_map(page: Page) -> None:
    progress = lesson_progress(page, LESSONS[0])
    expect(progress.locator('[data-progress="read"]')).to_have_text("read")
    expect(progress.locator('[data-progress="cells"]')).to_have_text("cells 1/3")
    expect(progress.locator('[data-progress="passed"]')).to_have_text("public tests 1/2")
    expect(progress.locator('[data-progress="accepted"]')).to_have_text("accepted 1/2")


def test_progress_follows_the_learner_key_to_a_new_browser(app: Page, browser, browser_context_args,
                                                          base_url, screenshots):
    first = LESSONS[0]
    total = len(re.findall(r"^[*-] ", (GRAPH_WALK / ".docs" / "hints.md").read_text(encoding="utf-8"), re.M))
    # Browser A: a cell run, the lesson read, one hint (opening the exercise gave it an identity), a submission.
    open_learn(app)
    app.locator(f'.lesson-item[data-lesson="{first}"]').click()
    cell = app.locator('.cell[data-cell="walk"]')
    cell.get_by_role("button", name=re.compile("^Run · Cell 1")).click()
    expect(cell.get_by_test_id("cell-verdict")).to_have_attribute("data-result", "matched", timeout=60_000)
    app.get_by_role("button", name="Mark this lesson as read").click()
    app.locator('.exercise-link[data-exercise="graph-walk"]').click()
    expect(app.get_by_role("heading", level=2, name=re.compile("Walk the graph"))).to_be_visible()
    app.locator("section.hints").get_by_role("button", name=f"Show hint 1 of {total}").click()
    set_code(app, (GRAPH_WALK / ".meta" / "reference.py").read_text(encoding="utf-8"))
    app.get_by_role("button", name="Submit", exact=True).click()
    expect(app.get_by_test_id("report-server").locator(".verdict")).to_have_attribute(
        "data-verdict", "Accepted", timeout=120_000)
    # What this browser did went to the judge, under its identity.
    kept = wait_for_judge(app, base_url, lambda p: p["lessons"].get(first, {}).get("read")
                          and p["exercises"].get("graph-walk", {}).get("hints") == 1, "A's progress")
    assert kept["lessons"][first]["cells"] == {"walk": "matched"}
    assert kept["exercises"]["graph-walk"]["accepted"] is True  # the judge's own verdict
    open_learn(app)
    app.get_by_role("button", name="← All lessons").click()
    app.get_by_text("Continue in another browser").click()
    key = app.locator("#learner-key-mine").input_value()
    assert key == json.loads(app.evaluate("localStorage.getItem('kael.client')"))["token"]

    # Browser B: a new context, nothing in its storage; the learner pastes the key.
    context = browser.new_context(**browser_context_args)
    other = context.new_page()
    watch = PageWatch()
    watch.attach(context, other)
    watch.allow(r"status of 401")  # the forged key below, refused
    try:
        other.goto(base_url + "/")
        expect(other.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
        open_learn(other)
        expect(lesson_progress(other, first).locator('[data-progress="read"]')).to_have_text("not read")
        other.get_by_text("Continue in another browser").click()
        panel = other.get_by_test_id("learner-key")
        expect(panel).to_contain_text("No learner key yet")
        field = panel.get_by_label("A learner key from another browser")
        field.fill("my password")
        panel.get_by_role("button", name="Use this key here").click()
        expect(panel.get_by_role("status")).to_have_text(re.compile("That is not a learner key"))
        field.fill("k1." + "A" * 22 + "." + "B" * 43)
        panel.get_by_role("button", name="Use this key here").click()
        expect(panel.get_by_role("status")).to_have_text("This server did not issue that key.")
        field.fill(key)
        panel.get_by_role("button", name="Use this key here").click()
        expect(other.get_by_test_id("learner-key").get_by_role("status")).to_have_text(
            re.compile("now uses that key"))
        check_first_lesson_on_the_map(other)
        other.locator(".learn").screenshot(path=shots(screenshots) / "learn-new-browser-map.png")
        # The hint asked for in A is shown in B, and the next one is asked for here.
        other.get_by_role("tab", name="Exercises").click()
        other.locator('.exercise-item[data-id="graph-walk"]').click()
        hints = other.locator("section.hints")
        expect(hints.locator(".hint")).to_have_count(1)
        hints.get_by_role("button", name=f"Show hint 2 of {total}").click()
        expect(hints.locator(".hint")).to_have_count(2)
        wait_for_judge(other, base_url, lambda p: p["exercises"]["graph-walk"]["hints"] == 2, "B's second hint")
        assert not watch.unexpected(), "\n".join(watch.unexpected())
    finally:
        context.close()

    # Back in A: a reload merges the judge's copy, so the hint asked for in B is there.
    app.reload()
    expect(app.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    app.get_by_role("tab", name="Exercises").click()
    app.locator('.exercise-item[data-id="graph-walk"]').click()
    expect(app.locator("section.hints .hint")).to_have_count(2)
    open_learn(app)
    back = app.get_by_role("button", name="← All lessons")
    if back.count():
        back.click()
    check_first_lesson_on_the_map(app)
