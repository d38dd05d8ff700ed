"""What the page does on start beyond bare Pyodide. A normal start imports kael's modules from the
bytecode the build compiled (web/scripts/precompile.mjs), checked-hash .pyc files that Python
validates against their sources, not compiled from source on every load. (The page falls back to
the sources silently, so only a test sees the bytecode go missing.) A start from the memory
snapshot has every module imported already: it fetches no bytecode, only kael's sources (for
tracebacks and inspect)."""

from __future__ import annotations

from playwright.sync_api import expect

from .test_playground import console, run, set_code
from .test_snapshot import MANIFEST, RESTORED, start

# PYTHONDONTWRITEBYTECODE is set in the worker: a .pyc on disk came from the build's archive.
CHECK = """import importlib.util, os, sys
mods = [m for name, m in sorted(sys.modules.items()) if name == "kael" or name.startswith("kael.")]
missing = [m.__name__ for m in mods if not (m.__spec__.cached and os.path.exists(m.__spec__.cached))]
flags = {int.from_bytes(open(m.__spec__.cached, "rb").read()[4:8], "little") for m in mods if m.__name__ not in missing}
stale = [m.__name__ for m in mods if m.__name__ not in missing
         and open(m.__spec__.cached, "rb").read()[8:16] != importlib.util.source_hash(open(m.__spec__.origin, "rb").read())]
print(f"modules={len(mods)} missing={missing} flags={sorted(flags)} (stale={stale})")
"""


def test_a_normal_start_imports_kael_from_the_builds_checked_bytecode(browser, base_url):
    app, watch, _ = start(browser, base_url, {MANIFEST: {"status": 404, "body": "not found"}})
    watch.allow(r"Failed to load resource: the server responded with a status of 404")
    assert any(url.endswith(".pyc.zip") for url in watch.requests), watch.requests
    set_code(app, CHECK)
    run(app)
    # flags 3: hash-based and checked against the source on import (PEP 552). A wheel rebuilt
    # after the page (the server serves dist/'s newest) makes some stale: Python then compiles
    # those from source, which is why they are checked; printed, not asserted.
    expect(console(app)).to_contain_text("missing=[] flags=[3]", timeout=60_000)
    text = console(app).text_content()  # textContent: a block not yet laid out (content-visibility) has no innerText
    count = int(text.split("modules=")[1].split()[0])
    assert count >= 40, text
    print("\n[startup] " + text.splitlines()[0])
    assert not watch.unexpected(), watch.unexpected()
    app.context.close()


# After a restore: kael's modules came from the heap; its sources are on disk for tracebacks and
# inspect, its bytecode is not (nothing would read it).
SOURCES = """import inspect, os, sys, traceback, kael
mods = [m for name, m in sorted(sys.modules.items()) if name == "kael" or name.startswith("kael.")]
sources = [m.__name__ for m in mods if m.__spec__.origin and os.path.exists(m.__spec__.origin)]
cached = [m.__name__ for m in mods if m.__spec__.cached and os.path.exists(m.__spec__.cached)]
try:
    kael.ones(2, 3) @ kael.ones(2, 3)
except Exception as e:
    frames = [f.line for f in traceback.extract_tb(e.__traceback__) if "kael" in f.filename]
print(f"modules={len(mods)} with source={len(sources)} with bytecode={len(cached)}")
print("backward's source:", inspect.getsource(kael.Tensor.backward).split("(")[0].strip())
print("kael lines in the traceback:", all(frames) and len(frames) > 0)
"""


def test_a_snapshot_start_fetches_no_bytecode_and_has_kaels_sources(browser, base_url):
    app, watch, lines = start(browser, base_url)
    assert any(RESTORED in line for line in lines), lines
    assert not any(url.endswith(".pyc.zip") for url in watch.requests), watch.requests
    set_code(app, SOURCES)
    run(app)
    expect(console(app)).to_contain_text("kael lines in the traceback: True", timeout=60_000)
    text = console(app).text_content()
    count = int(text.split("modules=")[1].split()[0])
    assert count >= 40 and f"with source={count} with bytecode=0" in text, text
    assert "backward's source: def backward" in text, text
    assert not watch.unexpected(), watch.unexpected()
    app.context.close()
