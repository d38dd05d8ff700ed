"""Vector products: ``dot`` (of two vectors, a 0-d result) and ``outer`` (a matrix), both
through ``matmul`` once the operands are checked as PyTorch checks them."""

from __future__ import annotations

from ..tensor import Tensor
from ._util import TORCH_NAMES
from .matmul import matmul
from ._register import method

__all__ = ["dot", "outer"]


def _name(d):
    return TORCH_NAMES.get(d, d.name)


def dot(a: Tensor, b: Tensor) -> Tensor:
    """sum_i a_i * b_i of two vectors of the same length and dtype."""
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_name(a.dtype)} and {_name(b.dtype)}")
    if a.shape != b.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have the same "
            f"number of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively"
        )
    return matmul(a, b)


def outer(a: Tensor, b: Tensor) -> Tensor:
    """out[i, j] = a_i * b_j."""
    for name, v in (("vec1", a), ("vec2", b)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return a.unsqueeze(1) * b.unsqueeze(0)


# Tensor methods of these ops (kael/ops/_register.py)
method(dot, params="other", call="_op(self, other)")
method(outer, params="other", call="_op(self, other)")
