"""The frames a child sends, as a schema: every frame is checked here before other code reads it.

The child runs the submission, so everything it writes is untrusted: a frame may have any
shape, any size, any nesting. ``parse(line, case_names)`` turns one frame's bytes into a dict
of exactly the fields below, with exactly these types and bounds, or raises ``BadFrame``
saying what is wrong (the run is then the submission's Runtime Error, never the judge's).

    ready         backend: str, python: str
    syntax_error  message: str, line: int, column: int, text: str
    loaded        (nothing)
    load_error    raised: RAISED  |  memory: true
    given         name: CASE, value: VALUE
    case          name: CASE, duration_ms: number, and one of
                  value: VALUE | raised: RAISED | memory: true | invalid: str
    done          (nothing)

    RAISED = {type: str, message: str, traceback: str}
    VALUE  = None, bool, int, float, str, list of VALUE, dict of str -> VALUE
    CASE   = one of the run's case names

Bounds: a frame's bytes (``MAX_FRAME_BYTES``), each string's length, an int's magnitude, a
duration (finite, 0 to a day), a value's nesting (``MAX_DEPTH``, as ``child.plain`` makes) and
item count. ``Budget`` caps what one run may send in all (frames and their bytes), so a report
built from them is bounded too. Nothing here recurses: the decoder's own nesting limit turns a
frame nested past it into ``BadFrame``.
"""

from __future__ import annotations

import json
import math

MAX_FRAME_BYTES = 4 * 1024 * 1024  # one case's value (a few hundred thousand numbers)
MAX_RUN_BYTES = 16 * 1024 * 1024
MAX_FRAMES = 10_000
MAX_TEXT = {"message": 2100, "traceback": 4000, "text": 2000, "type": 300, "backend": 40,
            "python": 40, "invalid": 4000}
MAX_VALUE_TEXT = 100_000
MAX_INT = 2 ** 63
MAX_LINE = 10 ** 9
MAX_DURATION_MS = 24 * 3600 * 1000.0
MAX_DEPTH = 101  # child.plain refuses deeper than 100 below the value itself
MAX_ITEMS = 200_000

_FIELDS = {
    "ready": {"backend": "text", "python": "text"},
    "syntax_error": {"message": "text", "line": "line", "column": "line", "text": "text"},
    "loaded": {},
    "done": {},
    "given": {"name": "case", "value": "value"},
}
_ONE_OF = {"load_error": ("raised", "memory"), "case": ("value", "raised", "memory", "invalid")}


class BadFrame(ValueError):
    """A frame outside the schema; its message says how, for the submission's Runtime Error."""


class Budget:
    """What one run may still send: ``MAX_FRAMES`` frames, ``MAX_RUN_BYTES`` bytes."""

    def __init__(self):
        self.frames = 0
        self.bytes = 0

    def spend(self, size: int) -> None:
        self.frames += 1
        self.bytes += size
        if self.frames > MAX_FRAMES:
            raise BadFrame(f"more than {MAX_FRAMES} frames")
        if self.bytes > MAX_RUN_BYTES:
            raise BadFrame(f"more than {MAX_RUN_BYTES} bytes of frames")


def parse(data: bytes, case_names, budget: Budget | None = None) -> dict:
    """The frame in ``data`` (the bytes after the prefix), checked; raises ``BadFrame``."""
    if budget is not None:
        budget.spend(len(data))
    if len(data) > MAX_FRAME_BYTES:
        raise BadFrame(f"a frame of {len(data)} bytes (at most {MAX_FRAME_BYTES})")
    try:
        frame = json.loads(data.decode("utf-8"), parse_constant=_constant, parse_int=_int)
    except RecursionError:
        raise BadFrame("a frame nested too deeply") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadFrame(f"a frame that is not JSON ({str(exc)[:100]})") from None
    if type(frame) is not dict:
        raise BadFrame("a frame that is not an object")
    event = frame.get("event")
    if type(event) is not str or (event not in _FIELDS and event not in _ONE_OF):
        raise BadFrame(f"a frame of unknown event {str(event)[:40]!r}")
    return _checked(event, frame, frozenset(case_names))


def _constant(name):
    return float(name)  # NaN, Infinity, -Infinity: a value may hold them (compare.py knows)


def _int(text):
    if len(text) > 20:
        raise ValueError(f"an integer of {len(text)} digits")
    return int(text)


def _checked(event: str, frame: dict, case_names) -> dict:
    fields = dict(_FIELDS.get(event, {}))
    if event == "case":
        fields.update(name="case", duration_ms="duration")
    allowed = set(fields) | set(_ONE_OF.get(event, ())) | {"event"}
    extra = set(frame) - allowed
    if extra:
        raise BadFrame(f"a {event} frame with unknown fields {sorted(extra)[:5]}")
    out = {"event": event}
    for key, kind in fields.items():
        if key not in frame:
            raise BadFrame(f"a {event} frame without {key!r}")
        out[key] = _field(event, key, kind, frame[key], case_names)
    if event in _ONE_OF:
        present = [k for k in _ONE_OF[event] if k in frame]
        if len(present) != 1:
            raise BadFrame(f"a {event} frame must have exactly one of {list(_ONE_OF[event])}")
        key = present[0]
        kind = {"raised": "raised", "memory": "true", "value": "value", "invalid": "text"}[key]
        out[key] = _field(event, key, kind, frame[key], case_names)
    return out


def _field(event, key, kind, value, case_names):
    where = f"{event}.{key}"
    if kind == "text":
        return _text(where, value, MAX_TEXT.get(key, 2000))
    if kind == "line":
        if type(value) is not int or not 0 <= value <= MAX_LINE:
            raise BadFrame(f"{where} must be an int from 0 to {MAX_LINE}")
        return value
    if kind == "duration":
        if type(value) not in (int, float) or not math.isfinite(value) or not 0 <= value <= MAX_DURATION_MS:
            raise BadFrame(f"{where} must be a number of milliseconds from 0 to {MAX_DURATION_MS:.0f}")
        return float(value)
    if kind == "case":
        if type(value) is not str or value not in case_names:
            raise BadFrame(f"{where} is not one of this run's test cases")
        return value
    if kind == "true":
        if value is not True:
            raise BadFrame(f"{where} must be true")
        return True
    if kind == "raised":
        if type(value) is not dict or set(value) != {"type", "message", "traceback"}:
            raise BadFrame(f"{where} must be {{type, message, traceback}}")
        return {k: _text(f"{where}.{k}", value[k], MAX_TEXT[k]) for k in ("type", "message", "traceback")}
    _value(where, value)
    return value


def _text(where, value, limit):
    if type(value) is not str:
        raise BadFrame(f"{where} must be a string")
    if len(value) > limit:
        raise BadFrame(f"{where} is longer than {limit} characters")
    return value


def _value(where, value) -> None:
    """Plain data within the bounds (an explicit stack: no recursion)."""
    stack, items = [(value, 0)], 0
    while stack:
        v, depth = stack.pop()
        items += 1
        if items > MAX_ITEMS:
            raise BadFrame(f"{where} has more than {MAX_ITEMS} items")
        if depth > MAX_DEPTH:
            raise BadFrame(f"{where} is nested deeper than {MAX_DEPTH} levels")
        t = type(v)
        if v is None or t is bool or t is float:
            continue
        if t is int:
            if not -MAX_INT <= v <= MAX_INT:
                raise BadFrame(f"{where} holds an integer beyond 2**63")
        elif t is str:
            if len(v) > MAX_VALUE_TEXT:
                raise BadFrame(f"{where} holds a string longer than {MAX_VALUE_TEXT} characters")
        elif t is list:
            stack.extend((item, depth + 1) for item in v)
        elif t is dict:
            stack.extend((item, depth + 1) for item in v.values())
        else:
            raise BadFrame(f"{where} holds a {t.__name__}")
