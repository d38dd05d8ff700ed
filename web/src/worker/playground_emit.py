"""How the worker's Python reaches the page: ``emit(kind, payload)`` posts one display through
the JavaScript module worker.ts registers, as JSON with no NaN in it (a float that is not
finite is sent as null), under a kind the page draws (``KIND``, shared with protocol.ts)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import _kael_worker  # registered by worker.ts: emit(kind, json_text)

# The display kinds the page draws, shared with protocol.ts (the worker writes the file here).
KIND: dict[str, str] = json.loads(Path(__file__).with_name("display_kinds.json").read_text())


def emit(kind: str, payload: dict) -> None:
    _kael_worker.emit(kind, json.dumps(payload, default=json_default, allow_nan=False))


def json_default(value):
    if isinstance(value, float):
        return None
    if hasattr(value, "tolist"):
        return value.tolist()
    return repr(value)


def finite(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None
