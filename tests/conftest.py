"""Fixtures shared by every test folder: how pytest-playwright launches Debian's Chromium
(CONTRIBUTING.md, "Running tests"). The end-to-end tests (tests/e2e) and the server's browser checks
(tests/server/test_browser.py) both use pytest-playwright's ``browser``/``page`` fixtures, so
one Playwright instance serves the whole session."""

from __future__ import annotations

from pathlib import Path

import pytest
from chromium import CHROMIUM, CHROMIUM_ARGS

def pytest_report_header(config):
    return f"chromium: {CHROMIUM} ({'present' if Path(CHROMIUM).exists() else 'missing'})"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: make setup installs Debian's chromium")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}
