"""Writes kael_docs.json: real kael.viz documents (kael/viz/SCHEMA.md) for the front end's unit
tests (web/src/**/*.test.ts), so they test the views' models on what kael really sends.
tests/web/test_fixtures.py fails when this file is stale; rerun it then:

    KAEL_BACKEND=python .venv/bin/python web/src/test/make_fixtures.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

import kael  # noqa: E402


def documents() -> dict:
    """The diamond of ADR 0005 (graph and trace), a chain of ten adds, and a relu loop (values exact on both backends)."""
    x = kael.tensor([1.0, 2.0], dtype=kael.float64, requires_grad=True)
    loss = (x * 2 + x * 3).sum()
    diamond = kael.viz.graph(loss, params=dict(x=x))
    with kael.viz.trace(params=dict(x=x)) as tr:
        loss.backward()
    y = x
    for _ in range(10):
        y = y + 1.0
    w = kael.tensor([0.5, 0.5], dtype=kael.float64, requires_grad=True)
    z = x
    for _ in range(5):
        z = (z * w + 1.0).relu()
    return {
        "diamond": diamond,
        "diamond_trace": tr.to_dict(),
        "add_chain": kael.viz.graph(y.sum(), params=dict(x=x)),
        "relu_loop": kael.viz.graph(z.sum(), params=dict(x=x, w=w)),
    }


def text() -> str:
    return json.dumps(documents(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    (HERE / "kael_docs.json").write_text(text())
