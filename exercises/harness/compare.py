"""Trusted comparison of a test case's outcome with the reference's (runs in the parent).

An outcome is what the child sent for one case, after JSON decoding:

* ``{"value": data}``: the case returned plain data;
* ``{"raised": {"type", "message", "traceback"}}``: the case raised;
* ``{"memory": True}``: the case ran out of memory;
* ``{"invalid": reason}``: the case returned something that is not plain data.

Values compare structurally: types exactly (bool is not a number; int and float compare as
numbers), floats within ``abs(a - b) <= atol + rtol * abs(b)``, NaN equal only to NaN, an
infinity only to the same infinity, dict keys as sets. Exceptions compare by type and message.
"""

from __future__ import annotations

import math

from .oracle import WRONG_ANSWER_ERRORS, compare_domain, is_domain

__all__ = ["Tolerance", "compare_outcomes", "first_difference", "render", "score_accuracy", "strip_frames"]

PASSED, FAILED, ERROR = "passed", "failed", "error"


class Tolerance:
    __slots__ = ("rtol", "atol")

    def __init__(self, rtol: float = 1e-4, atol: float = 1e-6):
        self.rtol = float(rtol)
        self.atol = float(atol)

    def close(self, a, b) -> bool:
        """``a`` (returned) is within tolerance of ``b`` (expected). Numbers beyond the float
        range (an int of 400 digits) are never converted: they equal only themselves."""
        if _too_big(a) or _too_big(b):
            return type(a) is type(b) and a == b
        a, b = float(a), float(b)
        if math.isnan(b):
            return math.isnan(a)
        if math.isnan(a):
            return False
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= self.atol + self.rtol * abs(b)


def _is_number(x) -> bool:
    return type(x) is int or type(x) is float


def _too_big(x) -> bool:
    """An int that ``float()`` cannot convert (it would raise ``OverflowError``)."""
    if type(x) is not int:
        return False
    try:
        float(x)
    except OverflowError:
        return True
    return False


def first_difference(actual, expected, tol: Tolerance):
    """``None`` when ``actual`` matches ``expected``; else ``(path, actual_part, expected_part,
    why)`` for the first difference found (an explicit stack, so deep data cannot recurse)."""
    stack = [("", actual, expected)]
    while stack:
        path, a, e = stack.pop()
        if _is_number(e) and _is_number(a):
            if type(e) is int and type(a) is int:
                if a != e:
                    return path, a, e, None
            elif not tol.close(a, e):
                return path, a, e, _overflow_reason(a, e)
            continue
        if type(a) is not type(e):
            return path, a, e, f"got {_kind(a)}, expected {_kind(e)}"
        if type(e) is list:
            if len(a) != len(e):
                return path, a, e, f"got a list of {_items(len(a))}, expected {_items(len(e))}"
            for i in range(len(e) - 1, -1, -1):
                stack.append((f"{path}[{i}]", a[i], e[i]))
        elif type(e) is dict:
            if set(a) != set(e):
                missing = sorted(set(e) - set(a))
                extra = sorted(set(a) - set(e))
                parts = []
                if missing:
                    parts.append("missing keys " + ", ".join(map(repr, missing)))
                if extra:
                    parts.append("unexpected keys " + ", ".join(map(repr, extra)))
                return path, a, e, "; ".join(parts)
            for k in reversed(list(e)):
                stack.append((f"{path}[{k!r}]", a[k], e[k]))
        elif a != e:  # None, bool, str
            return path, a, e, None
    return None


def _overflow_reason(a, e):
    """Why a number beyond the float range differs, or None for ordinary numbers."""
    for x, whose in ((a, "got"), (e, "expected")):
        if _too_big(x):
            return f"{whose} an int of {x.bit_length()} bits, too large to convert to a float"
    return None


def _items(n: int) -> str:
    return "1 item" if n == 1 else f"{n} items"


def _kind(x) -> str:
    return {type(None): "None", bool: "a bool", int: "an int", float: "a float", str: "a str",
            list: "a list", dict: "a dict"}.get(type(x), type(x).__name__)


def render(value, limit: int = 300, digits: int | None = None) -> str:
    """A short Python-literal rendering of plain data for messages. With ``digits``, floats are
    written with that many significant digits, so a returned and an expected value print at the
    same precision (a float32 result's ``0.30000001192092896`` beside an inline ``0.3``)."""
    text = repr(value) if digits is None else _literal(value, digits)
    if len(text) > limit:
        text = text[: limit - 5] + " ...]"
    return text


def _literal(value, digits: int) -> str:
    """``repr`` of plain data with every float at ``digits`` significant digits (explicit stack;
    ``_Text`` items are punctuation and keys, written as they are)."""
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if type(v) is _Text:
            out.append(v.text)
        elif type(v) is float:
            out.append(_float(v, digits))
        elif type(v) is list or type(v) is dict:
            items = list(v.items()) if type(v) is dict else list(enumerate(v))
            out.append("[" if type(v) is list else "{")
            stack.append(_Text("]" if type(v) is list else "}"))
            for i in range(len(items) - 1, -1, -1):
                key, item = items[i]
                stack.append(item)
                if type(v) is dict:
                    stack.append(_Text(repr(key) + ": "))
                if i:
                    stack.append(_Text(", "))
        else:
            out.append(repr(v))
    return "".join(out)


class _Text:
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


def _float(v: float, digits: int) -> str:
    """A float at ``digits`` significant digits that still reads as a float (``1.0``, not ``1``)."""
    if v != v or v in (float("inf"), float("-inf")):
        return repr(v)
    text = format(v, f".{digits}g")
    return text if any(c in text for c in ".en") else text + ".0"


SHOWN_DIGITS = 8


def _raised(r) -> str:
    message = r.get("message", "")
    return f"{r.get('type')}: {message}" if message else str(r.get("type"))


def score_accuracy(value, labels, minimum: float):
    """``(status, message)`` for a scored case: ``value["predictions"]`` against ``labels``.

    The labels come from the reference's run of the same case (never from the submission's),
    so the accuracy is computed here, from plain data, on points the submission did not choose."""
    predictions = value.get("predictions") if type(value) is dict else None
    if type(predictions) is not list:
        return FAILED, f"returned {render(value, 120)}\n  expected a dict with a list of predictions"
    if len(predictions) != len(labels):
        return FAILED, f"returned {_items(len(predictions))} of predictions for {_items(len(labels))}"
    correct = sum(1 for p, t in zip(predictions, labels) if type(p) is type(t) and p == t)
    accuracy = correct / len(labels) if labels else 0.0
    message = f"accuracy {accuracy:.3f} ({correct} of {len(labels)} points), needs at least {minimum:g}"
    return (PASSED, "") if accuracy >= minimum else (FAILED, message)


HIDDEN_TEST_FILE = "hidden_test.py"
DOMAIN_FILE = "judge_domain.py"


def strip_frames(trace: str, filename: str) -> str:
    """``trace`` (a formatted traceback) without the frames of ``filename``: the learner keeps the
    frames of their own code, and the source lines of hidden tests stay hidden."""
    out, skipping = [], False
    for line in trace.splitlines():
        if line.startswith("  File "):
            skipping = line.startswith(f'  File "{filename}"')
            if skipping:
                continue
        elif skipping and line.startswith("    "):
            continue
        else:
            skipping = False
        out.append(line)
    return "\n".join(out)


def _strip_hidden(trace: str) -> str:
    return strip_frames(strip_frames(trace, HIDDEN_TEST_FILE), DOMAIN_FILE)


def compare_outcomes(actual: dict | None, expected: dict, tol: Tolerance, *, reveal: bool = True,
                     min_accuracy: float | None = None):
    """``(status, message)`` for one case: ``passed``, ``failed`` or ``error``. With
    ``min_accuracy``, a returned value is scored with ``score_accuracy`` against the expected
    value's ``labels`` instead of compared."""
    if actual is None:
        return ERROR, "the test did not run: the program stopped before reaching it"
    if actual.get("memory"):
        return ERROR, "ran out of memory (MemoryError)"
    if "invalid" in actual:
        return ERROR, f"the test got back something that is not plain data: {actual['invalid']}"
    if "raised" in actual:
        got = actual["raised"]
        if "raised" in expected:
            want = expected["raised"]
            if got.get("type") == want.get("type") and got.get("message") == want.get("message"):
                return PASSED, ""
            if not reveal:
                return FAILED, f"raised {got.get('type')}, but not the expected exception"
            return FAILED, f"raised {_raised(got)}\nexpected it to raise {_raised(want)}"
        if got.get("type") in WRONG_ANSWER_ERRORS:  # kael's gradcheck found a wrong gradient
            if not reveal:
                return FAILED, "kael's gradcheck found a wrong gradient"
            return FAILED, f"kael's gradcheck found a wrong gradient: {got.get('message', '')}"
        message = f"raised {_raised(got)}"
        trace = got.get("traceback")
        if trace and not reveal:
            trace = strip_frames(trace, HIDDEN_TEST_FILE)
        if trace:
            message += "\n" + trace.rstrip()
        return ERROR, message
    if "value" not in actual:
        return ERROR, "the test sent back no result"
    value = actual["value"]
    if "raised" in expected:
        if not reveal:
            return FAILED, "returned a value, but an exception was expected"
        return FAILED, f"returned {render(value)}\nexpected it to raise {_raised(expected['raised'])}"
    want = expected["value"]
    if is_domain(want):
        return compare_domain(value, want, reveal=reveal, strip=_strip_hidden)
    if min_accuracy is not None:
        labels = want.get("labels") if type(want) is dict else None
        if type(labels) is not list:
            return ERROR, "the reference gave no labels for this scored case"
        return score_accuracy(value, labels, min_accuracy)
    diff = first_difference(value, want, tol)
    if diff is None:
        return PASSED, ""
    if not reveal:
        return FAILED, "wrong answer"
    path, a, e, why = diff
    # Both whole values at one precision; the first difference below at full precision.
    message = f"returned {render(value, digits=SHOWN_DIGITS)}\nexpected {render(want, digits=SHOWN_DIGITS)}"
    if path:
        detail = why or f"{render(a, 80)} instead of {render(e, 80)}"
        message += f"\nfirst difference at {path}: {detail}"
    elif why:
        message += f"\n({why})"
    if any(type(x) is float for x in (a, e)):
        message += f" (tolerance: atol {tol.atol:g} + rtol {tol.rtol:g} * |expected|)"
    return FAILED, message
