"""The front end's unit tests read real kael.viz documents from web/src/test/kael_docs.json: the
file must be what kael makes today, or the TypeScript would be tested on a schema kael no longer
sends. Regenerate with `.venv/bin/python web/src/test/make_fixtures.py`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "web" / "src" / "test"


def test_the_web_unit_tests_documents_are_what_kael_makes_now():
    spec = importlib.util.spec_from_file_location("make_fixtures", FIXTURES / "make_fixtures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (FIXTURES / "kael_docs.json").read_text() == module.text(), (
        "web/src/test/kael_docs.json is stale: run .venv/bin/python web/src/test/make_fixtures.py")
