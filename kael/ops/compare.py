"""Whole-tensor and tolerance comparisons: ``equal`` and ``isclose``. Neither records history."""

from __future__ import annotations

from .. import dtype as dt
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ._util import TORCH_NAMES
from ._register import method

__all__ = ["equal", "isclose"]


def equal(a: Tensor, b: Tensor) -> bool:
    """True when both have the same shape and equal elements (dtypes may differ, as in PyTorch)."""
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(f"equal(): argument 'other' must be Tensor, not {type(b).__name__}")
    if a.shape != b.shape:
        return False
    with no_grad():
        return bool((a == b).all().item())


def isclose(a: Tensor, b, rtol=1e-05, atol=1e-08, equal_nan=False) -> Tensor:
    """|a - b| <= atol + rtol * |b|, elementwise (equal infinities are close; NaNs only with
    ``equal_nan``); a bool tensor."""
    if not isinstance(b, Tensor):
        b = a.new_tensor(b)
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{TORCH_NAMES.get(a.dtype, a.dtype.name)} did not match {TORCH_NAMES.get(b.dtype, b.dtype.name)}")
    with no_grad():
        a, b = a.detach(), b.detach()
        same = a == b
        if not a.dtype.is_floating_point:
            a, b = a.to(dt.float64), b.to(dt.float64)
        close = same | ((a - b).abs() <= atol + rtol * b.abs())
        if equal_nan:
            close = close | ((a != a) & (b != b))
    return close


# Tensor methods of these ops (kael/ops/_register.py)
method(equal, params="other", call="_op(self, other)")
method(isclose, params="other, rtol=1e-05, atol=1e-08, equal_nan=False", call="_op(self, other, rtol, atol, equal_nan)")
