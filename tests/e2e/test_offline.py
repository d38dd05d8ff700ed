"""Offline after the first visit: the service worker (web/scripts/service-worker.js, written to
dist/sw.js by the build) caches the page, Pyodide and the kael wheel; with the browser context
offline the page reloads from that cache, stays cross-origin isolated, runs code, an example and
an exercise's tests, and Submit says plainly that the judge is unreachable."""

from __future__ import annotations

import http.server
import os
import re
import shutil
import threading
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, expect

from .conftest import DIST, StaticHandler
from .test_playground import EXERCISE, console, run, set_code, wait_idle

# The page registers its worker once Python is ready: wait for it to be activated (its activate
# step deletes older caches) and to control the page.
WORKER_CONTROLS_PAGE = """async () => {
  const registration = await navigator.serviceWorker.ready;
  const worker = registration.active;
  if (worker.state !== "activated") {
    await new Promise((resolve) => worker.addEventListener("statechange", () => worker.state === "activated" && resolve()));
  }
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }));
  }
  return { state: registration.active.state, script: navigator.serviceWorker.controller.scriptURL };
}"""

CACHES = """async () => {
  const names = await caches.keys();
  const urls = [];
  for (const name of names) for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
  return { names, urls };
}"""

# A same-origin file the build does not have: the worker finds it in no cache and asks the
# network, which must fail (the offline switch reaches the worker's own fetches too).
NETWORK_FROM_WORKER = """async () => {
  try {
    const response = await fetch("not-in-the-build.txt", { cache: "no-store" });
    return `answered ${response.status}`;
  } catch (error) {
    return "failed";
  }
}"""


def test_the_playground_works_offline_after_the_first_visit(app: Page, context, watch, base_url, screenshots):
    served = app.evaluate(WORKER_CONTROLS_PAGE)
    assert served["state"] == "activated"
    assert served["script"] == base_url + "/sw.js"
    cached = app.evaluate(CACHES)
    assert len(cached["names"]) == 1 and cached["names"][0].startswith("kael-offline-"), cached["names"]
    paths = {urlparse(url).path for url in cached["urls"]}
    assert "/" in paths
    assert any(re.fullmatch(r"/pyodide/[^/]+/pyodide\.asm\.wasm", p) for p in paths), sorted(paths)
    assert any(re.fullmatch(r"/wheels/kael-[^/]+-py3-none-any\.whl", p) for p in paths), sorted(paths)
    # The memory snapshot Python starts from, and the manifest of the build it fits.
    assert any(re.fullmatch(r"/snapshot/kael-[^/]+\.whl\.heap\.gz", p) for p in paths), sorted(paths)
    assert any(re.fullmatch(r"/snapshot/kael-[^/]+\.whl\.heap\.json", p) for p in paths), sorted(paths)
    assert not any(p.startswith("/api/") for p in paths), sorted(paths)

    # Offline, only the judge's API (and the probe below) may fail to load for the page: every
    # failed request is checked at the end, so the console lines Chromium logs for them are
    # allowed here. (The service worker's own fetches fail too: it tries the network first for
    # the page itself, then answers from its cache.)
    failed: list[str] = []
    context.on("requestfailed", lambda request: request.service_worker or failed.append(request.url))
    watch.allow(r"Failed to load resource: net::(ERR_INTERNET_DISCONNECTED|ERR_FAILED)$")
    worker_lines: list[str] = []
    app.on("worker", lambda w: w.on("console", lambda m: worker_lines.append(m.text)))
    context.set_offline(True)
    app.reload()
    wait_idle(app)
    expect(app.get_by_role("status")).to_contain_text("Ready")
    assert app.evaluate("() => navigator.onLine") is False
    assert app.evaluate(NETWORK_FROM_WORKER) == "failed"
    assert app.evaluate("() => crossOriginIsolated") is True
    assert app.evaluate("() => navigator.serviceWorker.controller !== null") is True
    # Offline, Python still starts from the cached memory snapshot.
    assert any("restored from the memory snapshot" in line for line in worker_lines), worker_lines

    set_code(app, "print(6*7)")
    run(app)
    expect(console(app)).to_contain_text("42")

    app.get_by_role("button", name=re.compile("The diamond trace")).click()
    run(app)
    wait_idle(app)
    app.get_by_role("tab", name="Trace").click()
    expect(app.get_by_test_id("trace-position")).to_have_text("Step 0 of 5")

    app.get_by_role("tab", name="Exercises").click()
    app.locator(f'.exercise-item[data-id="{EXERCISE}"]').click()
    expect(app.locator(".exercise-heading")).to_be_visible()
    app.get_by_role("button", name="Run tests", exact=True).click()
    local = app.get_by_test_id("report-local")
    expect(local.locator(".verdict")).to_have_attribute("data-verdict", re.compile(".+"), timeout=60_000)
    expect(local.locator(".verdict")).not_to_have_attribute("data-verdict", "Accepted")  # the starter

    app.get_by_role("button", name="Submit", exact=True).click()
    expect(app.get_by_test_id("report-server")).to_contain_text("The judge is unreachable: you seem to be offline")
    app.screenshot(path=screenshots / "offline-exercise.png")

    not_api = [url for url in failed if not urlparse(url).path.startswith("/api/")
               and not url.endswith("/not-in-the-build.txt")]
    assert not not_api, not_api


# ------------------------------------------------------------------------- a new build


class FolderHandler(StaticHandler):
    """StaticHandler serving whichever folder its server's `root` names at the time of the request."""

    def __init__(self, request, client_address, server):
        http.server.SimpleHTTPRequestHandler.__init__(self, request, client_address, server, directory=str(server.root))


@pytest.fixture
def two_builds(tmp_path):
    """This build (web/dist) and a next one: the same files, with a new worker version, a changed
    page and a changed favicon (a file the worker answers from its cache), both served from one
    origin; `switch()` makes the server answer from the next build."""
    first, nxt = tmp_path / "first", tmp_path / "next"
    # Copies (hard links) of this build, so a rebuild of web/dist during the test changes neither.
    shutil.copytree(DIST, first, copy_function=os.link)
    shutil.copytree(first, nxt, copy_function=os.link)  # each changed file below is a new file
    version = re.search(r'const VERSION = "([0-9a-f]+)"', (first / "sw.js").read_text()).group(1)
    after = version[::-1]  # another version of the same shape
    assert after != version
    for name, change in {
        "sw.js": lambda text: text.replace(f'const VERSION = "{version}"', f'const VERSION = "{after}"', 1),
        "index.html": lambda text: text.replace("<head>", f'<head>\n    <meta name="kael-build" content="{after}" />', 1),
        "favicon.svg": lambda text: text.replace("</svg>", f"<!-- build {after} --></svg>", 1),
    }.items():
        text = (nxt / name).read_text()
        (nxt / name).unlink()
        changed = change(text)
        assert changed != text, name
        (nxt / name).write_text(changed)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FolderHandler)
    httpd.root = first
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield {
        "url": f"http://127.0.0.1:{httpd.server_address[1]}",
        "before": version,
        "after": after,
        "switch": lambda: setattr(httpd, "root", nxt),
    }
    httpd.shutdown()
    httpd.server_close()


FAVICON = """async () => (await fetch("favicon.svg")).text()"""

# Waits until the one worker left is the given build's, active, with nothing installing or
# waiting behind it, and its cache is the only one (page.wait_for_function does not await an
# async predicate, so the page checks the condition itself until it holds or 120 s pass).
ONLY_CACHE = """async (name) => {
  const holds = async () => {
    const registration = await navigator.serviceWorker.getRegistration();
    const names = await caches.keys();
    return names.length === 1 && names[0] === name && registration?.active?.state === "activated"
      && !registration.installing && !registration.waiting
      && navigator.serviceWorker.controller?.scriptURL === registration.active.scriptURL;
  };
  const deadline = performance.now() + 120000;
  while (!(await holds())) {
    if (performance.now() > deadline) return `still ${JSON.stringify(await caches.keys())}`;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return "ok";
}"""


def test_a_new_build_replaces_the_offline_cache(page: Page, context, watch, two_builds):
    url, before, after = two_builds["url"], two_builds["before"], two_builds["after"]
    page.goto(url + "/")
    page.evaluate(WORKER_CONTROLS_PAGE)
    assert page.evaluate(ONLY_CACHE, f"kael-offline-{before}") == "ok"
    assert f"build {after}" not in page.evaluate(FAVICON)

    two_builds["switch"]()
    page.reload()  # a navigation checks the worker script: the next build's differs
    page.evaluate("async () => { await (await navigator.serviceWorker.getRegistration()).update(); }")
    assert page.evaluate(ONLY_CACHE, f"kael-offline-{after}") == "ok"
    assert f"build {after}" in page.evaluate(FAVICON)

    # Offline, the page and its files come from the new cache only: the next build's page.
    watch.allow(r"Failed to load resource: net::(ERR_INTERNET_DISCONNECTED|ERR_FAILED)$")
    context.set_offline(True)
    page.reload()
    expect(page.locator('meta[name="kael-build"]')).to_have_attribute("content", after)
    assert f"build {after}" in page.evaluate(FAVICON)
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    assert page.evaluate("() => caches.keys()") == [f"kael-offline-{after}"]
