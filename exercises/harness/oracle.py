"""The differential oracle: a submission's record of a declared domain against the reference's.

Both records are ``Domain.run`` data (``harness/domain.py``) made on the same seeded cases, the
reference's in its own child. Compared here, in the trusted parent, case by case and step by
step: whether a call raised, the exception's type and message, the result's exact type, a
tensor's dtype, shape, requires_grad and grad_fn, its values within an absolute **and** a
relative tolerance (``|a - e| <= atol * scale + rtol * |e|``, ``scale`` the largest finite
``|e|`` of that tensor, at least 1: a tiny value off by a factor of a million is wrong even
when the difference is small), and the side effects (each tensor argument changed or not, its
``.grad`` and requires_grad after, the grad mode). The first difference decides: a call that
raised where the reference's returned is an error (Runtime Error), anything else a failure
(Wrong Answer). Messages say "case 37 of 400" and the case's classes; the input only when
``reveal``.
"""

from __future__ import annotations

import math

__all__ = ["KIND", "compare_domain", "first_difference", "is_domain", "DEFAULT_TOLERANCE", "WRONG_ANSWER_ERRORS"]

KIND = "kael-domain/1"
PASSED, FAILED, ERROR = "passed", "failed", "error"
DEFAULT_TOLERANCE = {"float32": (1e-5, 1e-7), "float64": (1e-9, 1e-13)}
# Exceptions that say the answer is wrong, not that the program failed: kael's gradcheck raising
# inside a test found a wrong gradient (a Wrong Answer, not a Runtime Error).
WRONG_ANSWER_ERRORS = frozenset({"kael.autograd.gradcheck.GradcheckError"})


def is_domain(value) -> bool:
    return type(value) is dict and value.get("kind") == KIND


def compare_domain(actual, expected: dict, *, reveal: bool = True, strip=None):
    """``(status, message)`` of a submission's domain record ``actual`` against the
    reference's ``expected``. ``strip(traceback)`` drops frames the learner may not see."""
    if not is_domain(actual) or actual.get("name") != expected.get("name"):
        return FAILED, "the test's record of the generated cases is not the judge's (was it changed?)"
    want, got = expected["cases"], actual.get("cases")
    if type(got) is not list or len(got) != len(want):
        return FAILED, f"ran {len(got) if type(got) is list else 0} of the {len(want)} generated cases"
    tol = _tolerances(expected)
    for i, (a, e) in enumerate(zip(got, want)):
        found = _first_step_difference(a, e, tol)
        if found is not None:
            status, step, text = found
            return status, _message(i, len(want), e, step, text, reveal, strip)
    return PASSED, ""


def _tolerances(expected: dict) -> dict:
    tol = dict(DEFAULT_TOLERANCE)
    tol.update({k: tuple(v) for k, v in (expected.get("tolerance") or {}).items()})
    tol["grad_fn"] = expected.get("grad_fn") != "presence"  # the reference's record decides
    return tol


def first_difference(frame, expected) -> str | None:
    """Where a domain case's run first differs from the reference's, as ``"case 6: <call>"``
    (None when either is not a domain record, or they agree). Two runs that first differ at the
    same call of the same case likely make the same mistake (``mistakes.py``)."""
    actual = frame.get("value") if type(frame) is dict else None
    want = expected.get("value") if type(expected) is dict else None
    if not is_domain(want) or not is_domain(actual) or type(actual.get("cases")) is not list:
        return None
    tol = _tolerances(want)
    for i, (a, e) in enumerate(zip(actual["cases"], want["cases"])):
        found = _first_step_difference(a, e, tol)
        if found is not None:
            step = found[1]
            call = e["steps"][step]["call"] if step < len(e["steps"]) else "?"
            return f"case {i + 1}: {call}"
    return None


def _message(i, n, case, step, text, reveal, strip) -> str:
    classes = ", ".join(case.get("classes") or [])
    head = f"case {i + 1} of {n}" + (f" ({classes})" if classes else "")
    call = case["steps"][step]["call"] if step < len(case["steps"]) else "?"
    if not reveal:
        text = _hide(text)
        if strip is not None and text.startswith("raised"):
            text = strip(text)
    lines = [f"{head}: {call}: {text}"]
    if reveal and case.get("input"):
        lines.append("input: " + "; ".join(case["input"]))
    return "\n".join(lines)


def _hide(text: str) -> str:
    """Without reveal: what differs, not the values (a traceback keeps the learner's frames)."""
    return text.split(": ", 1)[0] if not text.startswith("raised") else text


def _first_step_difference(a, e, tol):
    """``(status, step index, text)`` for the first step that differs, or None."""
    steps, want = (a.get("steps") if type(a) is dict else None), e["steps"]
    if type(steps) is not list:
        return FAILED, 0, "the case's record is missing"
    for k, w in enumerate(want):
        if k >= len(steps):
            return FAILED, k, "this call was never made"
        s = steps[k]
        if type(s) is not dict or s.get("call") != w.get("call"):
            return FAILED, k, "the calls were made in another order"
        text = _step_difference(s, w, tol)
        if text is not None:
            crashed = "raised" in s and "raised" not in w and s["raised"].get("type") not in WRONG_ANSWER_ERRORS
            return (ERROR if crashed else FAILED), k, text
    if len(steps) > len(want):
        return FAILED, len(want), "more calls than the reference made"
    return None


def _step_difference(s, w, tol):
    if "raised" in w or "raised" in s:
        return _raised_difference(s.get("raised"), w.get("raised"))
    text = _value_difference(s.get("result"), w.get("result"), tol, "the result", w.get("scale"))
    if text is None and "effects" in w:
        names = w.get("watched") if type(w.get("watched")) is list else []
        text = _effects_difference(s.get("effects"), w["effects"], tol, names)
    return text


def _raised(r) -> str:
    return f"{r.get('type')}: {r.get('message')}" if r.get("message") else str(r.get("type"))


def _raised_difference(got, want):
    if got is None:
        return f"returned instead of raising: expected {_raised(want)}"
    if want is None:
        trace = got.get("traceback", "")
        return f"raised {_raised(got)}" + ("\n" + trace.rstrip() if trace else "")
    if got.get("type") != want.get("type") or got.get("message") != want.get("message"):
        return f"the exception's {'type' if got.get('type') != want.get('type') else 'message'}: raised {_raised(got)}, expected {_raised(want)}"
    return None


def _argument(j, names) -> str:
    """The watched tensor ``j`` as a message names it: its name if the reference's step gave one."""
    name = names[j] if j < len(names) and type(names[j]) is str else None
    return name or f"tensor argument {j + 1}"


def _effects_difference(got, want, tol, names=()):
    """``got`` and ``want`` are ``[changed, requires_grad, grads, grad_enabled]``, or the grad
    mode alone when the call had no tensor to watch (domain.py)."""
    if type(want) is bool:
        return None if got is want else f"grad mode after the call: got {got}, expected {want}"
    if type(got) is not list or len(got) != 4:
        return "side effects: not recorded"
    changed, flags, grads, enabled = got
    want_changed, want_flags, want_grads, want_enabled = want
    if enabled != want_enabled:
        return f"grad mode after the call: got {enabled}, expected {want_enabled}"
    for j in sorted(set(changed if type(changed) is list else []) ^ set(want_changed)):
        return f"side effect on {_argument(j, names)}: " + (
            "its values were changed, expected them untouched" if j not in want_changed
            else "its values were not changed, expected them to be")
    if flags != want_flags:
        return f"requires_grad of the tensor arguments after the call: got {flags}, expected {want_flags}"
    grads = grads if type(grads) is dict else {}
    for j in sorted(set(grads) | set(want_grads), key=int):
        where = f"{_argument(int(j), names)}'s .grad"
        g, w = grads.get(j), want_grads.get(j)
        if (g is None) != (w is None):
            return f"{where}: got {_kind(g)}, expected {_kind(w)}"
        text = None if w is None else _value_difference(g, w, tol, where)
        if text is not None:
            return text
    return None


def _value_difference(got, want, tol, where, scale=None):
    """A description of the first difference between two ``observe`` records, or None.
    ``scale``: the magnitude the values are compared at, when the reference's step gave one
    (at least each tensor's own)."""
    stack = [(where, got, want)]
    while stack:
        path, g, w = stack.pop()
        if type(g) is not list or not g or g[0] != w[0] or len(g) != len(w):
            return f"{path}'s type: got {_kind(g)}, expected {_kind(w)}"
        if w[0] == "Tensor":
            text = _tensor_difference(path, g, w, tol, scale)
            if text is not None:
                return text
        elif len(w) == 2 and type(w[1]) is list and w[0] in ("list", "tuple", "dict"):
            items, want_items = g[1], w[1]
            if type(items) is not list or len(items) != len(want_items):
                return f"{path}'s length: got a {w[0]} of {_count(items)}, expected {_count(want_items)}"
            for k in range(len(want_items) - 1, -1, -1):
                if w[0] == "dict":
                    stack.append((f"{path} key {k}", _pair(items[k], 0), want_items[k][0]))
                    stack.append((f"{path}[{k}]", _pair(items[k], 1), want_items[k][1]))
                else:
                    stack.append((f"{path}[{k}]", items[k], want_items[k]))
        elif len(w) == 2 and not _equal(g[1], w[1], tol["float64"], 1.0):
            return f"{path}'s value: got {_kind(g)}, expected {_kind(w)}"
    return None


def _pair(item, k):
    return item[k] if type(item) is list and len(item) == 2 else None


TENSOR_FIELDS = ("dtype", "shape", "requires_grad", "grad_fn")


def _tensor_difference(path, g, w, tol, scale=None):
    for k, key in enumerate(TENSOR_FIELDS, start=1):
        same = g[k] == w[k] if key != "grad_fn" or tol.get("grad_fn", True) else (g[k] is None) == (w[k] is None)
        if not same:
            return f"{path}'s {key}: got {g[k]!r}, expected {w[k]!r}"
    values, want = g[5], w[5]
    if type(values) is not list or len(values) != len(want):
        return f"{path}'s values: not as many as the shape says"
    rtol_atol = tol.get(w[1], tol["float64"])
    given = float(scale) if type(scale) in (int, float) and math.isfinite(scale) else 0.0
    scale = max([1.0, given] + [abs(v) for v in want if type(v) is float and math.isfinite(v)])
    for k, (a, e) in enumerate(zip(values, want)):
        if not _equal(a, e, rtol_atol, scale):
            return (f"{path}'s values: element {k} (flat) is {_num(a)}, expected {_num(e)} "
                    f"(of {_num(want[:8])}{' ...' if len(want) > 8 else ''})")
    return None


def _equal(a, e, rtol_atol, scale) -> bool:
    if type(e) is float and type(a) in (int, float):
        a = float(a)
        if math.isnan(e) or math.isnan(a):
            return math.isnan(e) and math.isnan(a)
        if math.isinf(e) or math.isinf(a):
            return a == e
        rtol, atol = rtol_atol
        return abs(a - e) <= atol * scale + rtol * abs(e)
    return type(a) is type(e) and a == e


def _num(x) -> str:
    """Values at one precision on both sides of a message (repr: exact, shortest)."""
    return repr(x)


def _kind(x) -> str:
    if type(x) is not list or not x:
        return "nothing" if x is None else "something else"
    if x[0] == "Tensor" and len(x) == 6:
        return f"a {x[1]} tensor of shape {x[2]}"
    if len(x) == 2 and x[0] in ("list", "tuple", "dict") and type(x[1]) is list:
        return f"a {x[0]} of {_count(x[1])}"
    if len(x) == 2:
        return f"{x[0]} {x[1]!r}"
    return str(x[0])


def _count(items) -> str:
    return f"{len(items)} items" if type(items) is list else "no items"
