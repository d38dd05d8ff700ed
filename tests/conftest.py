"""Fixtures shared by every test folder: how pytest-playwright launches Debian's Chromium
(CONTRIBUTING.md, "Running tests"). The end-to-end tests (tests/e2e) and the server's browser checks
(tests/server/test_browser.py) both use pytest-playwright's ``browser``/``page`` fixtures, so
one Playwright instance serves the whole session."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium import CHROMIUM, CHROMIUM_ARGS

def _repeatable_hypothesis() -> None:
    """Property tests draw the same examples on every run (a green run must be green every
    time); ``KAEL_HYPOTHESIS=explore`` draws new ones, to look for bugs on purpose."""
    import os

    try:
        from hypothesis import settings
    except ImportError:
        return
    settings.register_profile("repeatable", derandomize=True, database=None, deadline=None)
    settings.register_profile("explore", database=None, deadline=None)
    settings.load_profile("explore" if os.environ.get("KAEL_HYPOTHESIS") == "explore" else "repeatable")


_repeatable_hypothesis()


def pytest_report_header(config):
    return f"chromium: {CHROMIUM} ({'present' if Path(CHROMIUM).exists() else 'missing'})"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: make setup installs Debian's chromium")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}
