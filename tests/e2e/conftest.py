"""End-to-end fixtures: the real judge server serving the built front end, and Debian's Chromium
driven by Playwright (CONTRIBUTING.md, "Running tests"). Every test fails on a console error, an uncaught page
error, or a request to any host other than the local server."""

from __future__ import annotations

import http.server
import os
import re
import sys
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest
from live_server import LiveServer
from sandbox_uids import uid_base

REPO = Path(__file__).resolve().parents[2]
DIST = REPO / "web" / "dist"
SCREENSHOTS = REPO / "screenshots"
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}

def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/e2e" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The real server with the real sandbox; KAEL_SANDBOX=off only when the sandbox cannot run
    here (not root, or its self-test fails), said loudly in the test output."""
    if not (DIST / "index.html").is_file():
        pytest.fail("web/dist is not built: run `make web` (make test does it first)")
    data = tmp_path_factory.mktemp("server-data")
    log = data / "server.log"
    # Every browser context of the session is a new client: one token minted each.
    base = {"KAEL_DATA_DIR": str(data), "KAEL_RATE_LIMIT": "1000/60", "KAEL_MINT_LIMIT": "1000/3600",
            "KAEL_SANDBOX_UID_BASE": str(uid_base())}  # not a real server's 60000
    srv = LiveServer(base, log).start()
    if srv.health.get("grading") != "sandbox":
        srv.stop()
        sys.stderr.write(
            f"\n[e2e] grading sandbox not available here ({srv.health.get('grading_detail')}); "
            "starting the server with KAEL_SANDBOX=off\n"
        )
        srv = LiveServer({**base, "KAEL_SANDBOX": "off"}, log).start()
    assert srv.health["frontend_built"], srv.health
    yield srv
    srv.stop()


class StaticHandler(http.server.SimpleHTTPRequestHandler):
    """Any static file server with the isolation headers: what hosting web/dist alone looks like."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm",
                      ".json": "application/json", ".svg": "image/svg+xml", ".whl": "application/zip",
                      ".zip": "application/zip", ".woff2": "font/woff2"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=str(DIST), **kwargs)

    def end_headers(self):
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        super().end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def static_url():
    """web/dist on a plain static file server: no judge, no API."""
    if not (DIST / "index.html").is_file():
        pytest.fail("web/dist is not built: run `make web` (make test does it first)")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StaticHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def base_url(server):
    return server.url


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1440, "height": 900}, "locale": "en-US"}


class PageWatch:
    """Console errors, page errors and non-local requests seen during one test."""

    def __init__(self):
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.allowed: list[re.Pattern] = []

    def allow(self, pattern: str) -> None:
        """A console error this test provokes on purpose (matched with re.search)."""
        self.allowed.append(re.compile(pattern))

    def unexpected(self) -> list[str]:
        return [p for p in self.problems if not any(a.search(p) for a in self.allowed)]

    def attach(self, context, page):
        context.on("request", self._request)
        self.attach_page(page)

    def attach_page(self, page):
        page.on("console", lambda m: m.type == "error" and self.problems.append(f"console error: {m.text}"))
        page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        page.on("worker", lambda w: w.on("console", lambda m: m.type == "error" and self.problems.append(
            f"worker console error: {m.text}")))

    def _request(self, request):
        self.requests.append(request.url)
        parsed = urlparse(request.url)
        if parsed.scheme in ("data", "blob", "about"):
            return
        if parsed.hostname not in LOCAL_HOSTS:
            self.problems.append(f"non-local request: {request.url}")


@pytest.fixture
def watch(context, page):
    w = PageWatch()
    w.attach(context, page)
    yield w
    problems = w.unexpected()
    assert not problems, "\n".join(problems)


@pytest.fixture
def app(page, watch, base_url):
    """The playground page, loaded and ready to run Python."""
    from playwright.sync_api import expect

    page.goto(base_url + "/")
    # A cold load took up to 38 s at load average 15 (tests/bench/page_ready.py): room to spare.
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    return page


@pytest.fixture(scope="session")
def screenshots():
    SCREENSHOTS.mkdir(exist_ok=True)
    return SCREENSHOTS

