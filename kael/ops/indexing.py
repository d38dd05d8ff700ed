"""Indexing, indexed assignment and the in-place ops with ADR 0005's rules.

Basic indexing (ints, slices, ``None``, ``...``) returns a view; integer-array and boolean-mask
indexing copy. Every in-place op bumps the storage's version counter exactly once. With grad
mode on, an in-place op is refused on a leaf that requires grad, on a tensor with history, and
with a source that requires grad, so a recorded node never changes.
"""

from __future__ import annotations

import math

from .. import dtype as dt
from ..autograd.function import Function
from ..autograd.grad_mode import state as _grad_state
from ..autograd.meta import NoGradViewMeta
from ..creation import tensor
from ..tensor import B, Tensor, _view_op, _wrap
from ..backend.errors import broadcast_shapes, fmt_shape
from ._util import operands
from ._register import method

__all__ = ["index", "index_put_", "inplace_binary", "inplace_copy", "inplace_fill", "inplace_clamp", "check_inplace"]


def _normalize_key(key) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, Tensor):
            if k.dtype is not dt.int64 and k.dtype is not dt.bool_:
                raise IndexError(f"tensors used as indices must be long or bool tensors, got {k.dtype.name}")
            out.append(k._data)
        elif isinstance(k, (list, tuple)):
            t = tensor(k)
            if t.dtype is not dt.int64 and t.dtype is not dt.bool_:
                raise IndexError(f"lists used as indices must hold ints or bools, got {t.dtype.name}")
            out.append(t._data)
        elif isinstance(k, bool):
            out.append(B.full((), k, dt.bool_))
        elif isinstance(k, int) or k is None or k is Ellipsis or isinstance(k, slice):
            if isinstance(k, slice) and k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            out.append(k)
        elif hasattr(k, "__index__"):
            out.append(k.__index__())
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors are "
                f"valid indices, got {type(k).__name__}"
            )
    return tuple(out)


def _is_basic(key) -> bool:
    return all(k is None or k is Ellipsis or isinstance(k, (int, slice)) for k in key)


class Index(Function):
    """y = a[key];  da = zeros like a with g added at key (repeated indices accumulate)"""

    @staticmethod
    def forward(ctx, a, key=()):
        ctx.key = key
        out = B.getitem(a._data, key)
        return _view_op(out, a) if _is_basic(key) else _wrap(out)

    @staticmethod
    def backward(ctx, g):
        ni = ctx.inputs[0]
        out = _wrap(B.full(ni.shape, 0, g.dtype))
        if _is_basic(ctx.key):
            B.setitem(out._data, ctx.key, g._data)
        else:
            B.index_add_(out._data, ctx.key, g._data)
        return out


def _split_ints(key):
    """PyTorch's placement of advanced-index dims: integer indices select first, as basic
    indexing; the dims of the tensor indices then go where numpy's rule puts them among the
    remaining dims (numpy itself counts an int as one more advanced index, so
    ``x[1, :, [0, 1]]`` would be [2, 3] instead of PyTorch's [3, 2]).

    Returns ``(basic_key, advanced_key)``, or ``None`` when the key needs no split."""
    if _is_basic(key) or not any(type(k) is int for k in key):
        return None
    first, second = [], []
    for k in key:
        if type(k) is int:
            first.append(k)
        elif k is None or isinstance(k, slice):
            first.append(k)
            second.append(slice(None))
        elif k is Ellipsis:
            first.append(k)
            second.append(k)
        else:  # an index array: it keeps the dims it consumes for the second step
            consumed = len(B.shape(k)) if B.dtype(k) is dt.bool_ else 1
            first.extend([slice(None)] * consumed)
            second.append(k)
    return tuple(first), tuple(second)


class Select(Index):
    """y = a[..., i] along one dim (PyTorch's select);  da = zeros like a with g at i"""


class Slice(Index):
    """y = a[..., start:stop:step] along one dim;  da = zeros like a with g in the slice"""


def _basic_steps(key, ndim):
    """PyTorch's reading of a basic key: one select per int, one slice per slice that is not
    ``:`` (``x[:]`` alone still slices), one unsqueeze per ``None``, left to right; ``None``
    when the key has more indices than the tensor has dims (the one-step path reports it)."""
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    if consumed > ndim:
        return None
    steps, dim = [], 0
    for k in key:
        if k is Ellipsis:
            dim += ndim - consumed
        elif k is None:
            steps.append((None, dim, k))
            dim += 1
        elif isinstance(k, int):
            steps.append((Select, dim, k))
        else:
            if k.start not in (None, 0) or k.stop is not None or k.step not in (None, 1):
                steps.append((Slice, dim, k))
            dim += 1
    if not steps and ndim and any(isinstance(k, slice) for k in key):
        steps.append((Slice, 0, slice(None)))
    return steps


def _recorded_basic_index(a, key):
    """``a[key]`` as PyTorch records it (SelectBackward, SliceBackward, ...), or None."""
    steps = _basic_steps(key, a.ndim)
    if not steps:
        return None
    for op, dim, k in steps:
        if op is None:
            a = a.unsqueeze(dim)
        else:
            a = op.apply(a, key=(slice(None),) * dim + (k,))
    return a


def index(a, key):
    key = _normalize_key(key)
    if _grad_state.enabled and a.requires_grad and _is_basic(key):
        out = _recorded_basic_index(a, key)
        if out is not None:
            return out
    split = _split_ints(key)
    if split is not None:
        a = Index.apply(a, key=split[0])
        key = split[1]
    return Index.apply(a, key=key)


# -- in place ----------------------------------------------------------------------------------


def check_inplace(t: Tensor, op: str, source=None) -> None:
    """ADR 0005's three rules while grad mode is on, plus inference tensors' own rule."""
    if t._storage.version is None and not _grad_state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed.")
    if not _grad_state.enabled:
        return
    meta = t._meta
    if type(meta) is NoGradViewMeta and (meta.requires_grad or isinstance(source, Tensor) and source.requires_grad):
        raise RuntimeError(meta.message("is being"))
    if meta is not None and meta.requires_grad:
        if meta.grad_fn is None:
            raise RuntimeError(f"a leaf tensor that requires grad is being used in the in-place operation {op}")
        raise RuntimeError(f"{op} is not supported on a tensor with gradient history; use the out-of-place op")
    if isinstance(source, Tensor) and source.requires_grad:
        raise RuntimeError(f"{op} is not supported with a source that requires grad")


_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def check_no_overlap(arr) -> None:
    """PyTorch refuses writes into a tensor whose elements share memory (an ``expand``ed one)."""
    shape = B.shape(arr)
    if 0 in shape:
        return
    for n, st in zip(shape, B.strides(arr)):
        if st == 0 and n > 1:
            raise RuntimeError(_OVERLAP)


_PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to "
    "a single memory location. Please clone() the tensor before performing the operation."
)


def _dense(shape, strides) -> bool:
    """PyTorch's "non-overlapping and dense": some order of the dims is C-contiguous."""
    expected = 1
    for st, n in sorted((st, n) for n, st in zip(shape, strides) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def _torch_strides(arr, ndim) -> tuple:
    """``arr``'s strides as PyTorch has them, left-padded to ``ndim`` dims as its ``expand``
    does: a size-1 dim added by None, unsqueeze or expand strides over the dims after it."""
    own = tuple(B.shape(arr))
    shape = (1,) * (ndim - len(own)) + own
    strides = [0] * (ndim - len(own)) + list(B.strides(arr))
    for i in range(ndim - 1, -1, -1):
        if shape[i] == 1 and strides[i] == 0:
            strides[i] = strides[i + 1] * shape[i + 1] if i + 1 < ndim else 1
    return tuple(strides)


def _geometry(arr) -> tuple:
    """(shape, strides as PyTorch has them, offset)."""
    shape = tuple(B.shape(arr))
    return shape, _torch_strides(arr, len(shape)), B.offset(arr)


def _assigned_geometry(arr, shape) -> tuple | None:
    """The source of ``selection[...] = arr`` as PyTorch's ``copy_to`` writes it into a
    selection of ``shape``: every leading 1 of its shape stripped, then ``expand``ed (a dim it
    adds strides over the dims after it, 0 after none, and a size-1 dim it widens gets stride 0).
    None for a 0-d source (PyTorch fills with it) or one that cannot be assigned."""
    own, strides, offset = _geometry(arr)
    if not own:
        return None
    k = next((i for i, n in enumerate(own) if n != 1), len(own))
    own, strides = own[k:], strides[k:]
    if len(own) > len(shape):
        return None
    out: list[int] = []
    for i in range(len(shape) - 1, -1, -1):
        j = i - (len(shape) - len(own))
        size = own[j] if j >= 0 else 1
        stride = strides[j] if j >= 0 else (shape[i + 1] * out[0] if out else 0)
        if size != shape[i]:
            if size != 1:
                return None
            stride = 0
        out.insert(0, stride)
    return tuple(shape), tuple(out), offset


def _partly_overlap(a, b) -> bool:
    """PyTorch's ``get_overlap_status`` is Partial: both dense, and their memory ranges meet
    but are not the same elements in the same places. It gives up (no error) when either side
    is not dense."""
    (sa, ta, a0), (sb, tb, b0) = a, b
    if 0 in sa or 0 in sb or not (_dense(sa, ta) and _dense(sb, tb)):
        return False
    a1, b1 = a0 + math.prod(sa), b0 + math.prod(sb)
    if a0 == b0 and a1 == b1:
        return ta != tb  # the same elements in the same places: each is read before it is written
    return a0 < b1 and b0 < a1


def check_no_partial_overlap(t: Tensor, dst, source, expanded=False) -> None:
    """PyTorch refuses an in-place write whose source shares part of the written memory (an
    overlap it cannot order); the same memory read and written element by element is fine.
    ``expanded``: the source of an assignment, laid out as PyTorch's ``copy_to`` lays it out."""
    if not isinstance(source, Tensor) or source._storage is not t._storage:
        return
    src = source._data
    if expanded and tuple(B.shape(src)) != tuple(B.shape(dst)):
        b = _assigned_geometry(src, tuple(B.shape(dst)))
        if b is None:
            return
    else:
        b = _geometry(src)
    if _partly_overlap(_geometry(dst), b):
        raise RuntimeError(_PARTIAL_OVERLAP)


def _check_out_shape(t: Tensor, src) -> None:
    """An in-place result keeps ``t``'s shape: the source must broadcast to it."""
    shape, src_shape = B.shape(t._data), B.shape(src)
    if src_shape != shape and len(src_shape) >= len(shape):
        out = broadcast_shapes(shape, src_shape)
        if out != shape:
            raise RuntimeError(f"output with shape {fmt_shape(shape)} doesn't match the broadcast shape {fmt_shape(out)}")


def _source_array(t: Tensor, value, op: str):
    """``value`` as an array of ``t``'s dtype; refuses a cast that would lose the category."""
    (_, v), result = operands(t, value)
    if result.category > t.dtype.category:
        raise RuntimeError(f"result type {result.name} can't be cast to the desired output type {t.dtype.name} in {op}")
    arr = v._data
    return arr if B.dtype(arr) is t.dtype else B.astype(arr, t.dtype)


_TORCH_NAMES = {dt.int64: "long int", dt.bool_: "bool"}
_TORCH_SCALAR_NAMES = {dt.float32: "Float", dt.float64: "Float", dt.int64: "Long", dt.bool_: "Bool"}


def inplace_binary(t: Tensor, op: str, other, name: str) -> Tensor:
    check_inplace(t, name, other)
    check_no_partial_overlap(t, t._data, other)
    if op == "div" and not t.dtype.is_floating_point:
        raise RuntimeError(f"result type {dt.get_default_dtype().name} can't be cast to the desired output type {t.dtype.name} in {name}")
    src = _source_array(t, other, name)
    check_no_overlap(t._data)
    _check_out_shape(t, src)
    B.binary_(op, t._data, src)
    t._storage.bump()
    return t


def inplace_copy(t: Tensor, src) -> Tensor:
    check_inplace(t, "copy_", src)
    if src is t:
        t._storage.bump()  # PyTorch: copying a tensor into itself writes nothing, but counts
        return t
    check_no_partial_overlap(t, t._data, src)
    src = src if isinstance(src, Tensor) else _wrap(B.full((), src, t.dtype))
    arr = src._data if src.dtype is t.dtype else B.astype(src._data, t.dtype)
    check_no_overlap(t._data)
    _check_out_shape(t, arr)
    B.copy_(t._data, arr)
    t._storage.bump()
    return t


def inplace_fill(t: Tensor, value, name: str) -> Tensor:
    check_inplace(t, name, value)
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise RuntimeError(f"{name} only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
        value = value.item()
    B.fill_(t._data, value)
    t._storage.bump()
    return t


def inplace_clamp(t: Tensor, lo, hi) -> Tensor:
    check_inplace(t, "clamp_")
    if lo is None and hi is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None")
    for bound in (lo, hi):
        source = dt.scalar_dtype(bound) if isinstance(bound, (bool, int, float)) else None
        if source is not None and source.category > t.dtype.category:
            raise RuntimeError(
                f"result type {_TORCH_SCALAR_NAMES[source]} can't be cast to the desired output type {_TORCH_NAMES[t.dtype]}"
            )
    check_no_overlap(t._data)
    B.copy_(t._data, B.clip(t._data, lo, hi))
    t._storage.bump()
    return t


def _same_elements(t: Tensor, selected, value) -> bool:
    """Whether ``value``, broadcast to the selected region, is that region itself (same memory,
    same layout): PyTorch's copy then writes nothing, even into an expanded tensor."""
    if not isinstance(value, Tensor) or value._storage is not t._storage or value.dtype is not t.dtype:
        return False
    try:
        src = B.expand(value._data, B.shape(selected))
    except Exception:  # noqa: BLE001  (a value that cannot be broadcast: the write raises below)
        return False
    return B.offset(src) == B.offset(selected) and B.strides(src) == B.strides(selected)


def index_put_(t: Tensor, key, value) -> Tensor:
    """``t[key] = value``: writes through ``t``'s storage and bumps its version once. The value
    is cast to ``t``'s dtype as PyTorch does (``int_tensor[0] = 1.7`` stores 1)."""
    key = _normalize_key(key)
    if not B.shape(t._data) and any(type(k) is int for k in key):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    dst = t._data
    split = _split_ints(key)
    if split is not None:
        dst = B.getitem(dst, split[0])
        key = split[1]
    selected = B.getitem(dst, key)  # an invalid key raises PyTorch's IndexError before the grad rules
    check_inplace(t, "index_put_", value)
    if value is t and key == (Ellipsis,) or _is_basic(key) and _same_elements(t, selected, value):
        t._storage.bump()  # t[...] = t copies t into itself: nothing to write, but it counts
        return t
    check_no_overlap(selected if _is_basic(key) else dst)
    if isinstance(value, Tensor):
        arr = value._data
        if _is_basic(key) and math.prod(B.shape(arr)) == math.prod(B.shape(selected)):
            check_no_partial_overlap(t, selected, value, expanded=True)  # (a broadcast one is never checked)
    else:
        arr = operands(t, value)[0][1]._data
    B.setitem(dst, key, arr if B.dtype(arr) is t.dtype else B.astype(arr, t.dtype))
    t._storage.bump()
    return t


# Tensor methods: indexing and the in-place variants (kael/ops/_register.py)
method(index, "__getitem__")
method(inplace_binary, "add_", params="other, alpha=1", call="_op(self, 'add', other if alpha == 1 else other * alpha, 'add_')")
method(inplace_binary, "sub_", params="other, alpha=1", call="_op(self, 'sub', other if alpha == 1 else other * alpha, 'sub_')")
method(inplace_binary, "mul_", params="other", call="_op(self, 'mul', other, 'mul_')")
method(inplace_binary, "div_", params="other", call="_op(self, 'div', other, 'div_')")
method(inplace_binary, "pow_", params="other", call="_op(self, 'pow', other, 'pow_')")
method(inplace_binary, "__iadd__", params="other", call="self.add_(other)")
method(inplace_binary, "__isub__", params="other", call="self.sub_(other)")
method(inplace_binary, "__imul__", params="other", call="self.mul_(other)")
method(inplace_binary, "__itruediv__", params="other", call="self.div_(other)")
method(inplace_copy, "copy_", params="src", call="_op(self, src)")
method(inplace_fill, "zero_", params="", call="_op(self, 0, 'zero_')")
method(inplace_fill, "fill_", params="value", call="_op(self, value, 'fill_')")
method(inplace_clamp, "clamp_", params="min=None, max=None", call="_op(self, min, max)")
