"""``repr`` of tensors, in PyTorch's style: ``tensor([1.0000, 2.5000], requires_grad=True)``."""

from __future__ import annotations

import math

from . import dtype as dt

_EDGE = 3  # items shown at each end of a summarized dim
_THRESHOLD = 1000  # elements above which a tensor is summarized


def _float_formatter(values):
    finite = [abs(v) for v in values if math.isfinite(v)]
    if not finite:
        return lambda v: _special(v) or f"{v}"
    integral = all(v == int(v) for v in finite)
    big, small = max(finite), min((v for v in finite if v), default=0.0)
    if integral and big < 1e8:
        return lambda v: _special(v) or f"{v:.0f}."
    if big >= 1e8 or (small and small < 1e-4) or (small and big / small > 1000.0 and big > 1e3):
        return lambda v: _special(v) or f"{v:.4e}"
    return lambda v: _special(v) or f"{v:.4f}"


def _special(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _fmt_value(dtype):
    if dtype is dt.bool_:
        return lambda v: "True" if v else "False"
    return str


def _render(nested, shape, fmt, width, summarize, indent):
    # Iterative rendering would be overkill here: the depth is the tensor's ndim.
    if not shape:
        return fmt(nested).rjust(width)
    if len(shape) == 1:
        items = [fmt(v).rjust(width) for v in nested]
        if summarize and shape[0] > 2 * _EDGE:
            items = items[:_EDGE] + ["..."] + items[-_EDGE:]
        return "[" + ", ".join(items) + "]"
    rows = [_render(x, shape[1:], fmt, width, summarize, indent + 1) for x in nested]
    if summarize and shape[0] > 2 * _EDGE:
        rows = rows[:_EDGE] + ["..."] + rows[-_EDGE:]
    sep = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def _summarized(values, shape):
    """Keep only the edge items of each long dim (for big tensors)."""
    if not shape:
        return values
    if shape[0] > 2 * _EDGE:
        values = values[:_EDGE] + values[-_EDGE:]
    return [_summarized(v, shape[1:]) for v in values] if len(shape) > 1 else values


def format_tensor(t) -> str:
    values = t.tolist()
    shape = tuple(t.shape)
    dtype = t.dtype
    summarize = t.numel() > _THRESHOLD
    if summarize:
        values = _summarized(values, shape)
        shown_shape = tuple(min(s, 2 * _EDGE + 1) if s > 2 * _EDGE else s for s in shape)
    else:
        shown_shape = shape
    flat = values
    for _ in range(len(shape)):
        flat = [x for row in flat for x in row] if flat and isinstance(flat[0], list) else flat
    flat = flat if isinstance(flat, list) else [flat]
    if dtype.is_floating_point:
        fmt = _float_formatter(flat)
    else:
        fmt = _fmt_value(dtype)
    width = max((len(fmt(v)) for v in flat), default=0)
    if summarize:
        body = _render_summary(values, shape, fmt, width)
    else:
        body = _render(values, shape, fmt, width, False, len("tensor("))
    del shown_shape
    extras = []
    if t.numel() == 0 and len(shape) != 1:
        extras.append(f"size={tuple(shape)}")
    default = dt.get_default_dtype() if dtype.is_floating_point else dt.int64
    if dtype is not default and dtype is not dt.bool_:
        extras.append(f"dtype=kael.{dtype.name}")
    meta = t._meta
    if meta is not None and meta.grad_fn is not None:
        extras.append(f"grad_fn=<{meta.grad_fn.name()}>")
    elif meta is not None and meta.requires_grad:
        extras.append("requires_grad=True")
    if not shape:
        body = body.strip()
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"


def _render_summary(values, shape, fmt, width):
    # values already hold only edge items; re-insert "..." markers where dims were cut.
    def go(v, shp, indent):
        if len(shp) == 1:
            items = [fmt(x).rjust(width) for x in v]
            if shp[0] > 2 * _EDGE:
                items = items[:_EDGE] + ["..."] + items[_EDGE:]
            return "[" + ", ".join(items) + "]"
        rows = [go(x, shp[1:], indent + 1) for x in v]
        if shp[0] > 2 * _EDGE:
            rows = rows[:_EDGE] + ["..."] + rows[_EDGE:]
        sep = "," + "\n" * (len(shp) - 1) + " " * (indent + 1)
        return "[" + sep.join(rows) + "]"

    return go(values, shape, len("tensor("))
