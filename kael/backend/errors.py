"""Shape rules and the error messages every backend shares."""

from __future__ import annotations


def fmt_shape(shape) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def broadcast_error(*shapes) -> RuntimeError:
    return RuntimeError("shapes " + " and ".join(fmt_shape(s) for s in shapes) + " cannot be broadcast")


def matmul_error(a, b) -> RuntimeError:
    ka = a[-1] if a else None
    kb = (b[-2] if len(b) > 1 else b[0]) if b else None
    if not a or not b:
        return RuntimeError(f"matmul: both arguments need at least 1 dimension, got shapes {fmt_shape(a)} and {fmt_shape(b)}")
    if ka != kb:
        return RuntimeError(f"matmul: shapes {fmt_shape(a)} and {fmt_shape(b)} do not match: {ka} != {kb}")
    return RuntimeError(f"matmul: batch dims of shapes {fmt_shape(a)} and {fmt_shape(b)} cannot be broadcast")


def broadcast_shapes(*shapes) -> tuple:
    """numpy's broadcasting of shapes; ``RuntimeError`` (PyTorch's type) naming every shape when they don't fit."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s, ndim - len(s)):
            if n != out[i]:
                if out[i] == 1:
                    out[i] = n
                elif n != 1:
                    raise broadcast_error(*shapes)
    return tuple(out)
