"""The worker's Python side (web/src/worker: playground and the modules it imports, the files
site_files.json lists) loaded in CPython as the worker loads it, from the site folder by name,
with a stand-in for the JavaScript module it emits through (worker.ts's `_kael_worker`)."""

from __future__ import annotations

import importlib
import json
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
WORKER = REPO / "web" / "src" / "worker"
SITE_FILES = json.loads((WORKER / "site_files.json").read_text())
SITE_MODULES = [Path(name).stem for name in SITE_FILES if name.endswith(".py")]


@pytest.fixture
def emitted():
    """Every display the run sent, as (kind, payload)."""
    return []


@pytest.fixture
def driver(emitted, monkeypatch):
    """The module `playground`, freshly imported with every other site module (as the snapshot
    has them), emitting into `emitted`; `__main__` is a blank module of its own (a run clears it)."""
    fake = types.ModuleType("_kael_worker")
    fake.emit = lambda kind, text: emitted.append((kind, json.loads(text)))
    monkeypatch.setitem(sys.modules, "_kael_worker", fake)
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    monkeypatch.syspath_prepend(str(WORKER))
    forget_site_modules()
    modules = {name: importlib.import_module(name) for name in SITE_MODULES}
    yield modules["playground"]
    forget_site_modules()
    import kael.viz

    kael.viz.set_display(None)


@pytest.fixture
def watch(driver):
    """playground_watch, the module of what a run shows by itself, as `driver` imported it."""
    return sys.modules["playground_watch"]


def forget_site_modules():
    for name in SITE_MODULES:
        sys.modules.pop(name, None)
