"""The page starts Python from the build's memory snapshot (web/scripts/snapshot.mjs: kael and
every one of its modules imported), and falls back to a normal start, saying why in the page's
console and the worker's, when the snapshot is missing, damaged, made by another Pyodide, or
made from other site files (web/src/worker/site_files.json: playground and its modules).
Both starts reach a first result, and the state kael set up at import that depends on the page
(the JavaScript kernels, the display hook, stdout, the seeds) is the page's after a restore.

The fallbacks are provoked by serving other bytes for the snapshot's two files through a route
(service workers blocked, so that the route sees every request)."""

from __future__ import annotations

import gzip
import json
import re
import struct

import pytest
from playwright.sync_api import Page, expect

from .conftest import DIST, PageWatch
from .test_playground import console, run, set_code, wait_idle

SNAPSHOT_DIR = DIST / "snapshot"
RESTORED = "restored from the memory snapshot"
NORMAL = "a normal start, not from the memory snapshot: "

# What a program sees: kael's modules (all imported already after a restore), the JS kernel
# chosen and bit-identical to the pure-Python path on a matmul it takes, kael's default seed
# (the same values as a fresh import), the page's stdout, and a drawing reaching the page.
PROGRAM = """import random, sys
import kael, playground
from kael.backend.pyarray import js_kernel
mods = sum(1 for m in sys.modules if m == "kael" or m.startswith("kael."))
print(f"kael modules loaded: {mods}")
a, b = kael.randn(64, 256, dtype=kael.float64), kael.randn(256, 1024, dtype=kael.float64)
js = (a @ b).tolist()
kernels, js_kernel.KERNELS = js_kernel.KERNELS, None
try:
    py = (a @ b).tolist()
finally:
    js_kernel.KERNELS = kernels
print(f"js kernel: {kernels is not None}, bit-identical: {js == py}")
kael.manual_seed(0)
print("randn(3) after manual_seed(0):", [round(x, 6) for x in kael.randn(3).tolist()])
print(f"python random: {random.random()!r}")
playground.plot("loss", 1, 0.5)
print("done")
"""


def seeded() -> str:
    """kael.randn(3) after manual_seed(0) in this process: kael's generator is pure Python."""
    import kael  # noqa: PLC0415

    kael.manual_seed(0)
    return str([round(x, 6) for x in kael.randn(3).tolist()])


SEEDED = seeded()


def manifest() -> dict:
    (path,) = SNAPSHOT_DIR.glob("*.heap.json")
    return json.loads(path.read_text())


def heap_gz() -> bytes:
    (path,) = SNAPSHOT_DIR.glob("*.heap.gz")
    return path.read_bytes()


def fulfil(body: dict):
    return lambda route: route.fulfill(**body)


def start(browser, base_url, routes=None):
    """A new page (its own context, service workers blocked) with `routes` serving other bytes
    for the snapshot's files; returns the page, its watch and the worker's console lines."""
    context = browser.new_context(viewport={"width": 1440, "height": 900}, locale="en-US", service_workers="block")
    page = context.new_page()
    watch = PageWatch()
    watch.attach(context, page)
    lines: list[str] = []
    page.on("worker", lambda w: w.on("console", lambda m: lines.append(m.text)))
    for pattern, body in (routes or {}).items():
        context.route(re.compile(pattern), fulfil(body))
    page.goto(base_url + "/")
    expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=120_000)
    return page, watch, lines


def run_program(page: Page) -> str:
    set_code(page, PROGRAM)
    run(page)
    wait_idle(page)
    page.get_by_role("tab", name="Console").click()  # the plot opened the Plot tab
    expect(console(page)).to_contain_text("done")
    text = console(page).text_content()  # textContent: output blocks off screen (content-visibility) have no innerText yet
    assert "Error" not in text, text
    return text


def values(text: str) -> tuple[str, str]:
    randn = re.search(r"randn\(3\) after manual_seed\(0\): (\[.*\])", text).group(1)
    rand = re.search(r"python random: (\S+)", text).group(1)
    return randn, rand


@pytest.fixture
def snapshot_run(browser, base_url):
    page, watch, lines = start(browser, base_url)
    text = run_program(page)
    yield page, lines, text
    assert not watch.unexpected(), watch.unexpected()
    page.context.close()


def test_the_snapshot_start_has_kael_imported_and_the_pages_kernels_and_hooks(snapshot_run, browser, base_url, screenshots):
    page, lines, text = snapshot_run
    assert any(RESTORED in line for line in lines), lines
    assert not any(NORMAL in line for line in lines), lines
    data = manifest()
    assert re.search(rf"kael modules loaded: {data['modules']}\b", text), text
    assert "js kernel: True, bit-identical: True" in text, text
    expect(console(page)).not_to_contain_text("without the build's memory snapshot")
    assert values(text)[0] == SEEDED, text
    page.get_by_role("tab", name="Plot").click()
    expect(page.get_by_test_id("plot-legend")).to_contain_text("loss")  # the display reached the page
    page.screenshot(path=str(screenshots / "snapshot-start.png"))
    # Python's random is reseeded after a restore: another page draws other numbers.
    other, watch, _ = start(browser, base_url)
    assert values(run_program(other))[1] != values(text)[1]
    assert not watch.unexpected(), watch.unexpected()
    other.context.close()


def damaged() -> bytes:
    data = bytearray(heap_gz())
    middle = len(data) // 2
    data[middle:middle + 64] = bytes(b ^ 0xFF for b in data[middle:middle + 64])
    return bytes(data)


def other_build() -> bytes:
    """The snapshot with its header naming another Pyodide build: only Pyodide's own check on
    restore sees it (the manifest still names this build)."""
    heap = bytearray(gzip.decompress(heap_gz()))
    words = struct.unpack_from("<8I", heap, 16)
    struct.pack_into("<8I", heap, 16, *(w ^ 0xFFFFFFFF for w in words))
    return gzip.compress(bytes(heap), compresslevel=1)


def other_playground() -> dict:
    """The manifest of a snapshot made from another playground.py (as under `vite dev` once the
    worker's Python is edited): its heap holds that playground, imported already."""
    data = manifest()
    return {**data, "siteFiles": {**data["siteFiles"], "playground.py": "0" * 64}}


HEAP = r"/snapshot/[^/]+\.heap\.gz$"
MANIFEST = r"/snapshot/[^/]+\.heap\.json$"
FALLBACKS = {
    "missing": ({MANIFEST: {"status": 404, "body": "not found"}}, "there is no snapshot manifest (HTTP 404)"),
    "damaged": ({HEAP: {"body": damaged}}, "the snapshot is damaged"),
    "other-pyodide": ({MANIFEST: {"json": lambda: {**manifest(), "pyodide": "0.0.1"}}},
                      "the snapshot was made by Pyodide 0.0.1, this page runs "),
    "other-build": ({HEAP: {"body": other_build}}, "the snapshot did not load: Snapshot build id mismatch"),
    "other-playground": ({MANIFEST: {"json": other_playground}},
                         "the snapshot was made with another playground.py than this page's"),
}


@pytest.mark.parametrize("case", FALLBACKS, ids=list(FALLBACKS))
def test_a_snapshot_that_does_not_fit_falls_back_to_a_normal_start_and_says_why(case, browser, base_url, screenshots):
    routes, reason = FALLBACKS[case]
    routes = {pattern: {key: (value() if callable(value) else value) for key, value in body.items()}
              for pattern, body in routes.items()}
    page, watch, lines = start(browser, base_url, routes)
    watch.allow(r"Failed to load resource: the server responded with a status of 404")
    watch.allow(r"wasm instantiation failed|Snapshot build id mismatch")  # Pyodide's own logs
    try:
        said = [line for line in lines if NORMAL in line]
        assert len(said) == 1 and reason in said[0], lines
        assert not any(RESTORED in line for line in lines), lines
        expect(console(page)).to_contain_text("Python started without the build's memory snapshot, so more slowly: " + reason)
        if case == "damaged":  # the note, before a run clears the console
            page.screenshot(path=str(screenshots / "snapshot-fallback.png"))
            page.set_viewport_size({"width": 390, "height": 844})
            page.screenshot(path=str(screenshots / "snapshot-fallback-390.png"), full_page=True)
            page.set_viewport_size({"width": 1440, "height": 900})
        text = run_program(page)
        assert "js kernel: True, bit-identical: True" in text, text
        assert values(text)[0] == SEEDED, text
        assert not watch.unexpected(), watch.unexpected()
    finally:
        page.context.close()
