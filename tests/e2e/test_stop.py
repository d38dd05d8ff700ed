"""Stop lands every time a program is in Python code (issue 25): fifty runs of an endless loop
in one page, each stopped by a KeyboardInterrupt in place (never the one-second fallback that
replaces the runtime), and Stop pressed right after Run, before the worker has begun the run
(the interrupt must not be erased when the run starts: only the page clears it, between runs).
The page starts from the build's memory snapshot; the right-after-Run case runs on a normal
start too (the snapshot's manifest served as missing)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .test_playground import console, run, set_code, wait_idle
from .test_snapshot import MANIFEST, NORMAL, RESTORED, start

STOPPED = re.compile(r"^Stopped\.")
RESTARTED = "the runtime was restarted"


def stopped(page: Page):
    return console(page).locator(".note.warn").filter(has_text=STOPPED)


def expect_stopped(page: Page, what: str) -> None:
    """One "Stopped." note in the console (each run starts with a clear one), or a failure that
    shows what the console said instead."""
    try:
        expect(stopped(page)).to_have_count(1, timeout=30_000)
    except AssertionError as error:
        raise AssertionError(f"{what}: no Stopped note; the console says {console(page).inner_text()!r}, "
                             f"the status {page.get_by_role('status').inner_text()!r}") from error


def stop_button(page: Page):
    return page.get_by_role("button", name="Stop", exact=True)


def test_fifty_stops_in_a_row_each_interrupt_python_in_place(browser, base_url):
    page, watch, lines = start(browser, base_url)
    try:
        assert any(RESTORED in line for line in lines), lines
        stops = 0
        for i in range(50):
            set_code(page, f"print('looping', {i})\nwhile True:\n    pass\n")
            run(page)
            expect(console(page)).to_contain_text(f"looping {i}", timeout=30_000)  # in the loop now
            stop_button(page).click()
            # Each run starts with a clear console: one note, this run's, naming the loop's line.
            expect_stopped(page, f"stop {i + 1} of 50")
            expect(stopped(page)).to_contain_text("KeyboardInterrupt at line")
            expect(console(page)).to_contain_text(f"looping {i}")
            expect(console(page)).not_to_contain_text(RESTARTED)
            wait_idle(page, 30_000)
            stops += 1
        assert stops == 50
        set_code(page, "print('after fifty stops', 6 * 7)")
        run(page)
        expect(console(page)).to_contain_text("after fifty stops 42")
        assert not watch.unexpected(), watch.unexpected()
    finally:
        page.context.close()


@pytest.mark.parametrize("start_kind", ["snapshot", "normal"])
def test_stop_right_after_run_stops_the_run(start_kind, browser, base_url):
    routes = {MANIFEST: {"status": 404, "body": "not found"}} if start_kind == "normal" else {}
    page, watch, lines = start(browser, base_url, routes)
    watch.allow(r"Failed to load resource: the server responded with a status of 404")
    try:
        assert any((NORMAL if start_kind == "normal" else RESTORED) in line for line in lines), lines
        set_code(page, "while True:\n    pass\n")
        for i in range(10):
            run(page)
            stop_button(page).click()  # as soon as it is enabled: the run message may still be queued
            expect_stopped(page, f"stop {i + 1} right after Run")
            expect(console(page)).not_to_contain_text(RESTARTED)
            wait_idle(page, 30_000)
        set_code(page, "print('still here', 2 + 2)")
        run(page)
        expect(console(page)).to_contain_text("still here 4")
        assert not watch.unexpected(), watch.unexpected()
    finally:
        page.context.close()
