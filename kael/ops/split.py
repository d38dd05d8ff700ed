"""Cutting a tensor along one dim into views: ``split``, ``chunk``, ``unbind``, ``narrow``.

Each piece is a basic-indexing view of the input (``x[:, 2:4]``), so it shares its memory and
its gradient flows back through the index op."""

from __future__ import annotations

from ..tensor import Tensor
from ._util import norm_dim
from ._register import method

__all__ = ["split", "chunk", "unbind", "narrow", "tensor_split"]


def _along(x: Tensor, dim: int, key):
    return x[(slice(None),) * dim + (key,)]


def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The view ``x[..., start:start + length, ...]`` along ``dim``."""
    if x.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = norm_dim(dim, x.ndim)
    size = x.shape[dim]
    if start < 0:
        start += size
    if not 0 <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _along(x, dim, slice(start, start + length))


def _sizes(size: int, split_size_or_sections, dim: int) -> list:
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0 or step == 0 and size:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        if step == 0:
            return [0]
        return [min(step, size - i) for i in range(0, size, step)] or [0]
    sections = [int(s) for s in split_size_or_sections]
    if sum(sections) != size or any(s < 0 for s in sections):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension "
            f"{dim}), but got split_sizes={sections}"
        )
    return sections


def split(x: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Pieces of ``split_size`` along ``dim`` (the last may be smaller), or pieces of the given
    sizes when a list is passed."""
    if x.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = norm_dim(dim, x.ndim)
    out, start = [], 0
    for n in _sizes(x.shape[dim], split_size_or_sections, dim):
        out.append(_along(x, dim, slice(start, start + n)))
        start += n
    return tuple(out)


def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` pieces of equal size ``ceil(n / chunks)`` along ``dim``."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if x.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = norm_dim(dim, x.ndim)
    size = x.shape[dim]
    if size == 0:
        return tuple(_along(x, dim, slice(0, 0)) for _ in range(chunks))
    return split(x, -(-size // chunks), dim)


def tensor_split(x: Tensor, sections, dim: int = 0) -> tuple:
    """``sections`` pieces as equal as can be (the first ones one longer), or cuts at the given
    indices."""
    dim = norm_dim(dim, x.ndim)
    size = x.shape[dim]
    if isinstance(sections, int):
        q, r = divmod(size, sections)
        return split(x, [q + 1] * r + [q] * (sections - r), dim)
    cuts = [0, *(min(max(int(c), 0), size) for c in sections), size]
    return tuple(_along(x, dim, slice(a, max(a, b))) for a, b in zip(cuts, cuts[1:]))


def unbind(x: Tensor, dim: int = 0) -> tuple:
    """The slices ``x.select(dim, i)`` for every ``i``: one dim fewer each."""
    if x.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    dim = norm_dim(dim, x.ndim)
    return tuple(_along(x, dim, i) for i in range(x.shape[dim]))


# Tensor methods of these ops (kael/ops/_register.py)
method(split, params="split_size, dim=0", call="_op(self, split_size, dim)")
method(chunk)
method(tensor_split)
method(unbind)
method(narrow)
