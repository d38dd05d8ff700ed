"""Elementwise compute on flat lists: casts, unary and binary ops with broadcasting, where, clip.

Each op's fast path is one ``map`` or comprehension over whole lists; float32 results are
rounded when stored. Where Python raises for an input IEEE arithmetic answers (``math.log(0)``,
``1.0 / 0.0``, ``math.exp(1000)``), the op reruns per element with numpy's result.
"""

from __future__ import annotations

import math
from array import array
from operator import add, and_, eq, floordiv, ge, gt, le, lt, mod, mul, ne, neg, or_, sub, truediv, xor

from ... import dtype as dt
from ..base import BINARY_OPS, COMPARISONS, UNARY_OPS
from ..errors import broadcast_error, broadcast_shapes
from .array import INT64_MIN, PyArray, elements, first, new, values, write
from .shape import expand

INF = math.inf
NAN = math.nan
_MATH_ERRORS = (ValueError, OverflowError, ZeroDivisionError)
_INT64_END = 1 << 63


def _guarded(fast, slow):
    """``fast(*lists)``, or ``slow(*lists)`` (IEEE results element by element) when it raises."""

    def run(*lists):
        try:
            return fast(*lists)
        except _MATH_ERRORS:
            return slow(*lists)

    return run


def _mapped(fn):
    return lambda *lists: list(map(fn, *lists))


# -- casts ----------------------------------------------------------------------------------------
def cast_values(vals: list, src, dst) -> list:
    """``vals`` of dtype ``src`` as Python numbers of dtype ``dst`` (float to int truncates)."""
    if src is dst:
        return vals
    if dst is dt.bool_:
        return [x != 0 for x in vals]
    if dst is dt.int64:
        return _float_to_int(vals) if src.is_floating_point else list(map(int, vals))
    if dst is dt.float32:
        return array("f", vals).tolist()
    return list(map(float, vals))


def _float_to_int(vals: list) -> list:
    # numpy (x86) turns nan, inf and out-of-range values into INT64_MIN.
    try:
        out = list(map(int, vals))
    except (ValueError, OverflowError):
        out = [int(x) if x - x == 0 else INT64_MIN for x in vals]
    if out and (min(out) < INT64_MIN or max(out) >= _INT64_END):
        out = [x if INT64_MIN <= x < _INT64_END else INT64_MIN for x in out]
    return out


def scalar(value, dtype):
    """A Python number as an element of ``dtype`` (float32 rounded, int truncated)."""
    if dtype is dt.float32:
        return array("f", (value,))[0]
    if dtype is dt.float64:
        return float(value)
    if dtype is dt.int64:
        return _float_to_int([value])[0] if isinstance(value, float) else int(value)
    return bool(value)


def astype(a: PyArray, dtype) -> PyArray:
    return new(cast_values(values(a), a.dtype, dtype), a.shape, dtype)


# -- unary ----------------------------------------------------------------------------------------
_EXP_MAX = 709.78  # math.exp and math.expm1 overflow a little above this


def _exp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def _expm1(x):
    try:
        return math.expm1(x)
    except OverflowError:
        return INF


def _sigmoid(xs):
    exp = math.exp
    return [1.0 / (1.0 + exp(-x)) if x >= 0.0 else (e := exp(x)) / (1.0 + e) for x in xs]


def _ieee_unary(op):
    """The per-element retry of a float unary op: the IEEE result where ``math`` raises."""
    f = getattr(math, op)
    if op in ("exp", "expm1"):
        big = _exp if op == "exp" else _expm1
        return lambda xs: [f(x) if x < _EXP_MAX else big(x) for x in xs]
    if op == "log":
        return lambda xs: [f(x) if x > 0 else (-INF if x == 0 else NAN) for x in xs]
    if op == "log1p":
        return lambda xs: [f(x) if x > -1 else (-INF if x == -1 else NAN) for x in xs]
    if op == "sqrt":
        return lambda xs: [f(x) if x >= 0 else NAN for x in xs]
    if op in ("sin", "cos"):  # infinities give NaN
        return lambda xs: [f(x) if x - x == 0 else NAN for x in xs]
    # floor, ceil: infinities and NaN stay as they are
    return lambda xs: [math.copysign(f(x), x) if x - x == 0 else x for x in xs]


def _guarded_unary(op, fast=None):
    return _guarded(fast or _mapped(getattr(math, op)), _ieee_unary(op))


_FLOAT_UNARY = {
    "neg": _mapped(neg),
    "abs": _mapped(abs),
    "exp": _guarded_unary("exp"),
    "log": _guarded_unary("log"),
    "sqrt": _guarded_unary("sqrt"),
    "sin": _guarded_unary("sin"),
    "cos": _guarded_unary("cos"),
    "tanh": _mapped(math.tanh),
    "sigmoid": _sigmoid,
    "relu": lambda xs: [0.0 if x < 0 else x for x in xs],
    "sign": lambda xs: [1.0 if x > 0 else (-1.0 if x < 0 else 0.0) for x in xs],  # nan, -0.0: 0.0
    "erf": _mapped(math.erf),
    "log1p": _guarded_unary("log1p"),
    "expm1": _guarded_unary("expm1"),
    # copysign keeps the sign of a zero result (ceil(-0.5) is -0.0, as in IEEE arithmetic)
    "floor": _guarded_unary("floor", lambda xs: [math.copysign(math.floor(x), x) for x in xs]),
    "ceil": _guarded_unary("ceil", lambda xs: [math.copysign(math.ceil(x), x) for x in xs]),
    "square": lambda xs: [x * x for x in xs],
    "reciprocal": _guarded(
        lambda xs: [1.0 / x for x in xs], lambda xs: [1.0 / x if x else math.copysign(INF, x) for x in xs]
    ),
}

_INT_UNARY = {
    "neg": _mapped(neg),
    "abs": _mapped(abs),
    "relu": lambda xs: [0 if x < 0 else x for x in xs],
    "sign": lambda xs: [(x > 0) - (x < 0) for x in xs],
    "floor": list,
    "ceil": list,
    "square": lambda xs: [x * x for x in xs],
    "bitwise_not": lambda xs: [~x for x in xs],
}

_BOOL_UNARY = {
    "abs": list, "relu": list, "floor": list, "ceil": list, "sign": list,
    "bitwise_not": lambda xs: [not x for x in xs],
}

_UNARY = {dt.FLOAT: _FLOAT_UNARY, dt.INT: _INT_UNARY, dt.BOOL: _BOOL_UNARY}


def unary(op: str, a: PyArray) -> PyArray:
    if op == "logical_not":
        return new([not x for x in elements(a)], a.shape, dt.bool_)
    fn = _UNARY[a.dtype.category].get(op)
    if fn is None:
        if op not in UNARY_OPS:
            raise ValueError(f"unknown unary op {op!r}")
        raise TypeError(f"{op} is not supported for {a.dtype.name} tensors")
    return new(fn(elements(a)), a.shape, a.dtype)


# -- binary ---------------------------------------------------------------------------------------
def _div(x, y):
    """x / y with IEEE division by zero: nan for 0/0 and nan/0, else an infinity."""
    if y:
        return x / y
    if x != x or not x:
        return NAN
    return math.copysign(INF, x) * math.copysign(1.0, y)


def _odd_integer(y) -> bool:
    return y - y == 0 and y % 2 == 1


def _pow(x, y):
    try:
        return math.pow(x, y)
    except OverflowError:
        return -INF if x < 0 and _odd_integer(y) else INF
    except ValueError:
        if x == 0:  # zero to a negative power
            return math.copysign(INF, x) if _odd_integer(y) else INF
        return NAN  # negative base, non-integer power




_general_pow = _guarded(_mapped(math.pow), _mapped(_pow))


def _float_pow(xs, ys):
    """``x ** 0.5`` is a square root, as in PyTorch and numpy (``(-inf) ** 0.5`` is nan and
    ``(-0.0) ** 0.5`` is -0.0 there; ``math.pow`` gives inf and 0.0)."""
    if ys and ys[0] == 0.5 and all(y == 0.5 for y in ys):
        return [math.sqrt(x) if x >= 0 else NAN for x in xs]
    return _general_pow(xs, ys)


def _int_pow(xs, ys):
    if ys and min(ys) < 0:
        raise ValueError("integers to negative integer powers are not allowed")
    m = 1 << 64
    return [pow(x, y, m) for x, y in zip(xs, ys)]


_COMMON_BINARY = {
    "eq": _mapped(eq),
    "ne": _mapped(ne),
    "lt": _mapped(lt),
    "le": _mapped(le),
    "gt": _mapped(gt),
    "ge": _mapped(ge),
    "logical_and": lambda xs, ys: [(x != 0) and (y != 0) for x, y in zip(xs, ys)],
    "logical_or": lambda xs, ys: [(x != 0) or (y != 0) for x, y in zip(xs, ys)],
    "logical_xor": lambda xs, ys: [(x != 0) != (y != 0) for x, y in zip(xs, ys)],
}

_FLOAT_BINARY = {
    "add": _mapped(add),
    "sub": _mapped(sub),
    "mul": _mapped(mul),
    "div": _guarded(_mapped(truediv), lambda xs, ys: [x / y if y else _div(x, y) for x, y in zip(xs, ys)]),
    "pow": _float_pow,
    "maximum": lambda xs, ys: [x if x >= y or x != x else y for x, y in zip(xs, ys)],
    "minimum": lambda xs, ys: [x if x <= y or x != x else y for x, y in zip(xs, ys)],
    "floordiv": _guarded(
        _mapped(floordiv), lambda xs, ys: [x // y if y else _div(x, y) for x, y in zip(xs, ys)]
    ),
    "remainder": _guarded(
        lambda xs, ys: [r if (r := x % y) else math.copysign(0.0, x) for x, y in zip(xs, ys)],
        lambda xs, ys: [(x % y or math.copysign(0.0, x)) if y else NAN for x, y in zip(xs, ys)],
    ),  # a zero keeps the sign of x, as PyTorch's fmod-based remainder (Python's takes y's)
    **_COMMON_BINARY,
}

_INT_BINARY = {
    "add": _mapped(add),
    "sub": _mapped(sub),
    "mul": _mapped(mul),
    "pow": _int_pow,
    "maximum": lambda xs, ys: [x if x >= y else y for x, y in zip(xs, ys)],
    "minimum": lambda xs, ys: [x if x <= y else y for x, y in zip(xs, ys)],
    "floordiv": _guarded(_mapped(floordiv), lambda xs, ys: [x // y if y else 0 for x, y in zip(xs, ys)]),
    "remainder": _guarded(_mapped(mod), lambda xs, ys: [x % y if y else 0 for x, y in zip(xs, ys)]),
    "bitwise_and": _mapped(and_),
    "bitwise_or": _mapped(or_),
    "bitwise_xor": _mapped(xor),
    **_COMMON_BINARY,
}

_BOOL_BINARY = {
    "add": lambda xs, ys: [x or y for x, y in zip(xs, ys)],
    "mul": lambda xs, ys: [x and y for x, y in zip(xs, ys)],
    "maximum": lambda xs, ys: [x or y for x, y in zip(xs, ys)],
    "minimum": lambda xs, ys: [x and y for x, y in zip(xs, ys)],
    "bitwise_and": lambda xs, ys: [x and y for x, y in zip(xs, ys)],
    "bitwise_or": lambda xs, ys: [x or y for x, y in zip(xs, ys)],
    "bitwise_xor": lambda xs, ys: [x != y for x, y in zip(xs, ys)],
    **_COMMON_BINARY,
}

_BINARY = {dt.FLOAT: _FLOAT_BINARY, dt.INT: _INT_BINARY, dt.BOOL: _BOOL_BINARY}


def _binary_fn(op: str, dtype):
    fn = _BINARY[dtype.category].get(op)
    if fn is None:
        if op not in BINARY_OPS:
            raise ValueError(f"unknown binary op {op!r}")
        raise TypeError(f"{op} is not supported for {dtype.name} tensors")
    return fn


def broadcast_values(a: PyArray, shape: tuple, size: int) -> list:
    """``a``'s values broadcast to ``shape`` (of ``size`` elements), in C order, for reading once."""
    if a.shape == shape:
        return elements(a)
    if a.size == 1:
        return [first(a)] * size
    own = a.shape
    lead = len(shape) - len(own)
    if lead > 0 and shape[lead:] == own:  # repeated along new leading dims only: a list repetition
        return values(a) * (size // a.size if a.size else 0)
    return values(expand(a, shape))


def _size(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def binary(op: str, a: PyArray, b: PyArray) -> PyArray:
    dtype = a.dtype if a.dtype is b.dtype else dt.promote_types(a.dtype, b.dtype)
    fn = _binary_fn(op, dtype)
    if a.shape == b.shape:
        shape, xs, ys = a.shape, elements(a), elements(b)
    else:
        shape = broadcast_shapes(a.shape, b.shape)
        size = _size(shape)
        xs, ys = broadcast_values(a, shape, size), broadcast_values(b, shape, size)
    xs, ys = cast_values(xs, a.dtype, dtype), cast_values(ys, b.dtype, dtype)
    return new(fn(xs, ys), shape, dt.bool_ if op in COMPARISONS else dtype)


def binary_(op: str, a: PyArray, b: PyArray) -> None:
    """``a = a op b`` in place, ``b`` broadcast to ``a``'s shape; the result cast to ``a``'s dtype."""
    dtype = a.dtype if a.dtype is b.dtype else dt.promote_types(a.dtype, b.dtype)
    fn = _binary_fn(op, dtype)
    if b.shape != a.shape and b.size != 1:
        b = expand(b, a.shape)
    elif b.size == 1 and len(b.shape) > len(a.shape):
        raise broadcast_error(b.shape, a.shape)
    xs = cast_values(elements(a), a.dtype, dtype)
    ys = cast_values(broadcast_values(b, a.shape, a.size), b.dtype, dtype)
    out = fn(xs, ys)
    result = dt.bool_ if op in COMPARISONS else dtype
    write(a, cast_values(out, result, a.dtype))


def where(cond: PyArray, a: PyArray, b: PyArray) -> PyArray:
    try:
        shape = broadcast_shapes(cond.shape, a.shape, b.shape)
    except RuntimeError:
        raise broadcast_error(a.shape, b.shape, cond.shape) from None
    dtype = a.dtype if a.dtype is b.dtype else dt.promote_types(a.dtype, b.dtype)
    size = _size(shape)
    cs = broadcast_values(cond, shape, size)
    xs = cast_values(broadcast_values(a, shape, size), a.dtype, dtype)
    ys = cast_values(broadcast_values(b, shape, size), b.dtype, dtype)
    return new([x if c else y for c, x, y in zip(cs, xs, ys)], shape, dtype)


def clip(a: PyArray, lo, hi) -> PyArray:
    """numpy's ``minimum(maximum(a, lo), hi)``: NaN in ``a`` or in a bound propagates."""
    xs = values(a)
    if lo is not None:
        lo = scalar(lo, a.dtype)
        xs = [x if x >= lo or x != x else lo for x in xs]
    if hi is not None:
        hi = scalar(hi, a.dtype)
        xs = [x if x <= hi or x != x else hi for x in xs]
    return new(xs, a.shape, a.dtype)


def fill_(a: PyArray, value) -> None:
    write(a, [scalar(value, a.dtype)] * a.size)
