"""``repr`` of tensors, in PyTorch's style: ``tensor([1.0000, 2.5000], requires_grad=True)``.

The rules are PyTorch's (``torch/_tensor_str.py``, default print options): one format for every
element, chosen from the nonzero finite values (integral values print as ``1.``, a spread over
1000x or values above 1e8 or below 1e-4 switch to scientific notation), rows wrapped at 80
characters, tensors over 1000 elements summarized to 3 items at each end of each dim.
"""

from __future__ import annotations

import math

from . import dtype as dt

_EDGE = 3  # items shown at each end of a summarized dim
_THRESHOLD = 1000  # elements above which a tensor is summarized
_LINEWIDTH = 80
_PRECISION = 4


class _Formatter:
    """One format and one width for every element of a tensor (PyTorch's ``_Formatter``)."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        if not floating:
            self.width = max((len(self._plain(v)) for v in values), default=1)
            return
        nonzero = [v for v in values if math.isfinite(v) and v != 0]
        if not nonzero:
            return
        magnitudes = [abs(v) for v in nonzero]
        lo, hi = min(magnitudes), max(magnitudes)
        self.int_mode = all(v == math.ceil(v) for v in nonzero)
        spread = hi / lo > 1000.0 or hi > 1.0e8
        if self.int_mode:
            self.sci_mode = spread
            widths = (len(f"{v:.{_PRECISION}e}") if spread else len(f"{v:.0f}") + 1 for v in nonzero)
        else:
            self.sci_mode = spread or lo < 1.0e-4
            fmt = "e" if self.sci_mode else "f"
            widths = (len(f"{v:.{_PRECISION}{fmt}}") for v in nonzero)
        self.width = max(widths)

    @staticmethod
    def _plain(v):
        return str(v)

    def format(self, v) -> str:
        if not self.floating:
            text = self._plain(v)
        elif self.sci_mode:
            text = f"{v:.{_PRECISION}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{_PRECISION}f}"
        return text.rjust(self.width)


def _summarized(values, shape):
    """Keep only the edge items of each long dim (for big tensors)."""
    if not shape:
        return values
    if shape[0] > 2 * _EDGE:
        values = values[:_EDGE] + values[-_EDGE:]
    return [_summarized(v, shape[1:]) for v in values] if len(shape) > 1 else values


def _flat(values, ndim):
    for _ in range(ndim - 1):
        values = [x for row in values for x in row]
    return values if ndim else [values]


def _render(values, shape, fmt, indent, summarize):
    """``values`` (already summarized when ``summarize``) as PyTorch lays them out."""
    if not shape:
        return fmt.format(values)
    cut = summarize and shape[0] > 2 * _EDGE
    if len(shape) == 1:
        items = [fmt.format(v) for v in values]
        if cut:
            items = items[:_EDGE] + [" ..."] + items[_EDGE:]
        per_line = max(1, (_LINEWIDTH - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = [_render(v, shape[1:], fmt, indent + 1, summarize) for v in values]
    if cut:
        rows = rows[:_EDGE] + ["..."] + rows[_EDGE:]
    return "[" + ("," + "\n" * (len(shape) - 1) + " " * (indent + 1)).join(rows) + "]"


def _add_suffixes(text, suffixes, indent):
    # PyTorch's arithmetic, including its count for a one-line text (len + 2).
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > _LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def format_tensor(t) -> str:
    prefix = "tensor("
    indent = len(prefix)
    shape = tuple(t.shape)
    dtype = t.dtype
    suffixes = []
    if t.numel() == 0:
        if len(shape) != 1:
            suffixes.append(f"size={shape}")
        if dtype is not dt.get_default_dtype():
            suffixes.append(f"dtype=kael.{dtype.name}")
        body = "[]"
    else:
        if dtype not in (dt.get_default_dtype(), dt.int64, dt.bool_):
            suffixes.append(f"dtype=kael.{dtype.name}")
        summarize = t.numel() > _THRESHOLD
        values = t.tolist()
        if summarize:
            values = _summarized(values, shape)
        fmt = _Formatter(_flat(values, len(shape)), dtype.is_floating_point)
        body = _render(values, shape, fmt, indent, summarize)
    meta = t._meta
    if meta is not None and meta.grad_fn is not None:
        suffixes.append(f"grad_fn=<{meta.grad_fn.name()}>")
    elif meta is not None and meta.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
