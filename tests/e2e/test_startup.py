"""What the page does on start beyond bare Pyodide: kael's modules are imported from the bytecode
the build compiled (web/scripts/precompile.mjs), checked-hash .pyc files that Python validates
against their sources, not compiled from source on every load. (The page falls back to the
sources silently, so only a test sees the bytecode go missing.)"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from .test_playground import console, run, set_code

# PYTHONDONTWRITEBYTECODE is set in the worker: a .pyc on disk came from the build's archive.
CHECK = """import importlib.util, os, sys
mods = [m for name, m in sorted(sys.modules.items()) if name == "kael" or name.startswith("kael.")]
missing = [m.__name__ for m in mods if not (m.__spec__.cached and os.path.exists(m.__spec__.cached))]
flags = {int.from_bytes(open(m.__spec__.cached, "rb").read()[4:8], "little") for m in mods if m.__name__ not in missing}
stale = [m.__name__ for m in mods if m.__name__ not in missing
         and open(m.__spec__.cached, "rb").read()[8:16] != importlib.util.source_hash(open(m.__spec__.origin, "rb").read())]
print(f"modules={len(mods)} missing={missing} flags={sorted(flags)} (stale={stale})")
"""


def test_kael_is_imported_from_the_builds_checked_bytecode(app: Page):
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
