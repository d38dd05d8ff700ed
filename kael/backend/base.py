"""The one small interface every array backend implements.

A backend is an object with the methods below, working on its own array type ``A`` (a numpy
``ndarray`` or the pure-Python strided ``PyArray``). The Tensor layer above resolves dtypes,
normalizes dims (non-negative ints) and shapes (tuples of ints), and only then calls a backend,
so backends check little beyond what they alone can see (broadcasting, index ranges).

Conventions:

* ``dtype`` arguments and results are ``kael.dtype.DType`` objects.
* Binary elementwise ops take two arrays of the same dtype and broadcast them; comparisons and
  logical ops return bool arrays. ``div`` is only called on floating arrays; ``floordiv`` and
  ``remainder`` follow Python's sign rules (as numpy and PyTorch do).
* Strides and offsets are counted in elements, not bytes.
* Errors: ``ValueError`` with PyTorch-like messages, e.g.
  ``shapes [2, 3] and [4] cannot be broadcast``; ``IndexError`` naming the index, the dim and
  its size, e.g. ``index 5 is out of bounds for dim 0 with size 3``.
* Views share memory with the array they come from: writing through one is visible through the
  other.
"""

from __future__ import annotations

UNARY_OPS = (
    "neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu",
    "sign", "erf", "log1p", "expm1", "floor", "ceil", "logical_not", "square", "reciprocal",
    "bitwise_not",
)
"""Names accepted by ``Backend.unary``. float-only: exp log sqrt sin cos tanh sigmoid erf log1p
expm1 reciprocal; the rest keep int64 too. ``logical_not`` accepts any dtype and returns bool;
``bitwise_not`` takes int64 (two's complement) or bool (logical not)."""

BINARY_OPS = (
    "add", "sub", "mul", "div", "pow", "maximum", "minimum", "floordiv", "remainder",
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
    "bitwise_and", "bitwise_or", "bitwise_xor",
)
"""Names accepted by ``Backend.binary`` and (all but comparisons/logical) ``Backend.binary_``.
The bitwise ops take int64 or bool arrays and keep their dtype."""

INTEGER_ONLY = frozenset(("bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor"))
"""Ops that take only int64 and bool arrays (PyTorch has no float kernel for them)."""

COMPARISONS = frozenset(("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"))


class Backend:
    """Documentation of the interface; each method says what it returns."""

    name: str  # "numpy" or "python"

    # -- construction ----------------------------------------------------------------------
    def from_nested(self, data, dtype):
        """An array from a Python scalar or (nested) list/tuple of numbers; shape inferred.

        Ragged input raises ``ValueError("expected sequence of length 3 at dim 1 (got 2)")``."""
        raise NotImplementedError

    def from_flat(self, values, shape, dtype):
        """A contiguous array of ``shape`` from a flat list of ``prod(shape)`` Python numbers."""
        raise NotImplementedError

    def full(self, shape, value, dtype):
        raise NotImplementedError

    def arange(self, start, stop, step, dtype):
        raise NotImplementedError

    def linspace(self, start, end, steps, dtype):
        raise NotImplementedError

    def eye(self, n, m, dtype):
        raise NotImplementedError

    # -- introspection -----------------------------------------------------------------------
    def shape(self, a) -> tuple:
        raise NotImplementedError

    def dtype(self, a):
        raise NotImplementedError

    def strides(self, a) -> tuple:
        """Strides in elements."""
        raise NotImplementedError

    def offset(self, a) -> int:
        """Element offset of ``a``'s first element in its underlying buffer."""
        raise NotImplementedError

    def is_contiguous(self, a) -> bool:
        """True when ``a`` is C-contiguous (size-1 dims may have any stride)."""
        raise NotImplementedError

    def tolist(self, a):
        """Nested Python lists of Python numbers (a plain number for 0-d)."""
        raise NotImplementedError

    def flat(self, a) -> list:
        """The elements in C order as a flat list of Python numbers."""
        raise NotImplementedError

    def item(self, a):
        """The single element as a Python number; ``ValueError`` unless exactly one element."""
        raise NotImplementedError

    def same_memory(self, a, b) -> bool:
        """True when ``a`` and ``b`` view the same underlying buffer."""
        raise NotImplementedError

    # -- conversion and copies -----------------------------------------------------------------
    def astype(self, a, dtype):
        """A new contiguous array with values cast (float to int truncates toward zero)."""
        raise NotImplementedError

    def cast(self, a, dtype):
        """``astype`` for ``Tensor.to``: PyTorch keeps the order of the input's strides (a transposed
        tensor stays transposed); a backend that cannot lays the result out contiguously."""
        return self.astype(a, dtype)

    def copy(self, a):
        """A new contiguous array with the same values and dtype."""
        raise NotImplementedError

    # -- views (share memory) ---------------------------------------------------------------------
    def view(self, a, shape):
        """A view with a new shape, or ``None`` when ``a``'s strides cannot express it."""
        raise NotImplementedError

    def permute(self, a, dims):
        raise NotImplementedError

    def expand(self, a, shape):
        """Broadcast ``a`` to ``shape`` (stride 0 on expanded dims); numpy's broadcast_to."""
        raise NotImplementedError

    def getitem(self, a, key: tuple):
        """numpy indexing. ``key`` is a tuple of int, slice, None, Ellipsis, or int64/bool arrays
        of this backend. Basic indexing returns a view; any array in ``key`` gives a copy
        (numpy's advanced-indexing rules, including where the broadcast index dims go)."""
        raise NotImplementedError

    def setitem(self, a, key: tuple, value) -> None:
        """Write ``value`` (an array of a's dtype, broadcast to the indexed shape) into ``a``."""
        raise NotImplementedError

    def index_add_(self, a, key: tuple, values) -> None:
        """In place: ``a[key] += values`` where repeated indices accumulate (numpy's add.at)."""
        raise NotImplementedError

    # -- compute ----------------------------------------------------------------------------------
    def unary(self, op: str, a):
        raise NotImplementedError

    def binary(self, op: str, a, b):
        raise NotImplementedError

    def binary_(self, op: str, a, b) -> None:
        """In place: ``a = a op b`` with ``b`` broadcast to ``a``'s shape."""
        raise NotImplementedError

    def copy_(self, dst, src) -> None:
        """In place: copy ``src`` (same dtype, broadcast to ``dst``'s shape) into ``dst``."""
        raise NotImplementedError

    def fill_(self, a, value) -> None:
        raise NotImplementedError

    def where(self, cond, a, b):
        """Broadcasting select: ``cond`` is bool, ``a`` and ``b`` share a dtype."""
        raise NotImplementedError

    def clip(self, a, lo, hi):
        """Clamp to ``[lo, hi]``; either bound may be ``None``. Bounds are Python numbers."""
        raise NotImplementedError

    def sum(self, a, dims: tuple, keepdim: bool):
        """Sum over ``dims`` (a tuple, possibly empty meaning no reduction). bool sums as int64."""
        raise NotImplementedError

    def amax(self, a, dims: tuple, keepdim: bool):
        """Max over ``dims``; ``ValueError`` on an empty reduction. NaN propagates."""
        raise NotImplementedError

    def amin(self, a, dims: tuple, keepdim: bool):
        raise NotImplementedError

    def argmax(self, a, dim, keepdim: bool):
        """Index of the first maximum along ``dim`` (``None``: over the flattened array); int64."""
        raise NotImplementedError

    def argmin(self, a, dim, keepdim: bool):
        raise NotImplementedError

    def matmul(self, a, b):
        """numpy's matmul: 1-D operands promoted and squeezed, batch dims broadcast. Shape
        mismatches raise ``ValueError("matmul: shapes [2, 3] and [4, 5] do not match: 3 != 4")``."""
        raise NotImplementedError

    def concat(self, arrays, dim: int):
        raise NotImplementedError
