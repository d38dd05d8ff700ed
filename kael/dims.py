"""Dim arguments: negative dims count from the end, and PyTorch's range error.

Shared by ``Tensor`` (``size(dim)``, ``stride(dim)``) and every op; it needs no tensor, so both
import it without the tensor/ops cycle.
"""

from __future__ import annotations

__all__ = ["norm_dim", "norm_dims"]


def norm_dim(dim: int, ndim: int) -> int:
    lo, hi = (-1, 0) if ndim == 0 else (-ndim, ndim - 1)
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"dim must be an int, got {type(dim).__name__}")
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim % ndim if ndim else 0


def norm_dims(dim, ndim: int) -> tuple:
    """``None`` means every dim; an int or a sequence of ints is normalized and checked."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        return () if ndim == 0 else (norm_dim(dim, ndim),)
    dims = tuple(norm_dim(d, ndim) for d in dim)
    if ndim == 0:
        return ()
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {list(dim)} appears multiple times in the list of dims")
    return dims
