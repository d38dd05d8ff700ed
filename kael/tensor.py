"""``Tensor`` and ``Storage``.

A tensor is a backend array (possibly a view), the ``Storage`` it shares with every other view of
the same memory (which carries the version counter), and an optional ``AutogradMeta``.
Operations live in ``kael.ops``; the methods that only call an op are registered there, beside
the op (``kael/ops/_register.py``), and the methods here are the ones with logic of their own.

The import cycle has one idiom (CONTRIBUTING.md, "The import cycle"): every module that needs
``Tensor`` imports it from here at its top; this module imports the modules its methods call
(autograd, creation, ops) at its bottom, once ``Tensor`` exists.
"""

from __future__ import annotations

import math
import weakref

from . import dtype as dt
from .autograd.grad_mode import state as _grad_state
from .autograd.meta import AutogradMeta, NoGradViewMeta
from .autograd.hooks import RETAIN_GRAD, TENSOR_HOOK
from .autograd.node import _RemovableHandle
from .autograd.source import record_modification
from .autograd.source import state as _source
from .backend import get_backend
from .backend.errors import fmt_shape
from ._device import CPU, as_device, is_device_like
from .dims import norm_dim
from .size import Size

B = get_backend()

__all__ = ["Tensor", "Storage", "Size"]


class Storage:
    """Owns the memory of a tensor and its views, and the version counter of that memory.

    ``version`` counts in-place writes through any view (PyTorch's ``t._version``); it is
    ``None`` for inference tensors, which carry no counter.
    """

    __slots__ = ("version", "__weakref__")

    def __init__(self, version=0):
        self.version = version

    def bump(self):
        if self.version is not None:
            self.version += 1
            if _source.enabled:
                record_modification(self)


def _wrap(arr) -> "Tensor":
    """A tensor owning a freshly computed backend array."""
    t = object.__new__(Tensor)
    t._data = arr
    t._storage = Storage(None if _grad_state.inference else 0)
    t._meta = None
    return t


def _view(arr, base: "Tensor") -> "Tensor":
    """A tensor viewing ``base``'s memory: it shares ``base``'s storage and version counter."""
    t = object.__new__(Tensor)
    t._data = arr
    t._storage = base._storage
    t._meta = None
    return t


def _view_op(arr, base: "Tensor") -> "Tensor":
    """The result of a view op (indexing, view, permute, expand): as ``_view``, and it knows its
    root base, as PyTorch's ``_base`` (``detach_()`` refuses it). A view of a view made under
    ``no_grad`` inherits that state (``NoGradViewMeta``), as PyTorch's creation meta does."""
    t = object.__new__(Tensor)
    t._data = arr
    t._storage = storage = base._storage
    root = getattr(base, "_base", None)
    t._base = base if root is None else root
    meta = base._meta
    if type(meta) is NoGradViewMeta:
        t._meta = NoGradViewMeta(meta.base, storage)
    else:
        t._meta = None
    return t


def _recorded(meta):
    """The node that recorded the tensor, read without a no-grad view's check (PyTorch's
    ``requires_grad_`` and ``retain_grad`` do not refuse a view whose memory changed)."""
    return meta._grad_fn if type(meta) is NoGradViewMeta else meta.grad_fn


def _no_grad_view(t: "Tensor") -> None:
    """Called for the result of an op run under ``no_grad``: a view of a tensor whose root base
    requires grad becomes a no-grad view (PyTorch: it requires grad while its base does)."""
    if t._meta is None:
        root = getattr(t, "_base", None)
        if root is not None:
            meta = root._meta
            if meta is not None and meta.requires_grad:
                t._meta = NoGradViewMeta(root, t._storage)


_DETACH_VIEW = (
    "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
    "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
    "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
    "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
)


class _RetainGrad:
    """Pre-hook on a non-leaf's grad_fn that stores the incoming gradient in ``.grad``."""

    __slots__ = ("ref",)
    retains_grad = True
    hook_phase = RETAIN_GRAD

    def __init__(self, tensor):
        self.ref = weakref.ref(tensor)

    def __call__(self, grads):
        t = self.ref()
        if t is not None:
            t._accumulate_grad(grads[0])
        return None


class _TensorHook:
    """Adapts ``fn(grad) -> grad | None`` to the node pre-hook convention."""

    __slots__ = ("fn",)
    hook_phase = TENSOR_HOOK

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, grads):
        out = self.fn(grads[0])
        return None if out is None else (out,)


class Tensor:
    """An n-dimensional array with PyTorch's autograd semantics as ADR 0005 decides them."""

    __slots__ = ("_data", "_storage", "_meta", "_base", "__weakref__")

    __array_priority__ = 1000  # numpy scalars defer to our operators

    def __init__(self, data, *, dtype=None, requires_grad=False):
        t = creation.tensor(data, dtype=dtype)
        self._data = t._data
        self._storage = t._storage
        self._meta = None
        if requires_grad:
            self.requires_grad_()

    # -- basic properties --------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(B.shape(self._data))

    def size(self, dim=None):
        shape = B.shape(self._data)
        if dim is None:
            return Size(shape)
        return shape[norm_dim(dim, len(shape))]

    @property
    def dtype(self) -> dt.DType:
        return B.dtype(self._data)

    @property
    def ndim(self) -> int:
        return len(B.shape(self._data))

    def dim(self) -> int:
        return len(B.shape(self._data))

    def numel(self) -> int:
        return math.prod(B.shape(self._data))

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    def stride(self, dim=None):
        """Strides in elements. A size-1 dim added by ``None``/``unsqueeze`` reports PyTorch's
        stride (the next dim's stride times its size) rather than the backend's 0: never used to
        step, it only has to read the way PyTorch shows it."""
        shape = B.shape(self._data)
        strides = B.strides(self._data)
        if 0 in strides:
            fixed = list(strides)
            for i in range(len(shape) - 1, -1, -1):
                if shape[i] == 1 and fixed[i] == 0:
                    fixed[i] = fixed[i + 1] * shape[i + 1] if i + 1 < len(shape) else 1
            strides = tuple(fixed)
        return strides if dim is None else strides[norm_dim(dim, len(shape))]

    def storage_offset(self) -> int:
        return B.offset(self._data)

    def is_contiguous(self) -> bool:
        return B.is_contiguous(self._data)

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    @property
    def device(self):
        return CPU

    is_cuda = False

    @property
    def data(self) -> "Tensor":
        """The same memory without history and with a version counter of its own (PyTorch's
        ``.data``: ``p.data -= lr * p.grad`` is not seen by autograd)."""
        t = object.__new__(Tensor)
        t._data = self._data
        t._storage = Storage(None if self._storage.version is None else 0)
        t._meta = None
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data  # the version counter stays this tensor's own, as in PyTorch

    @property
    def _version(self) -> int:
        v = self._storage.version
        if v is None:
            raise RuntimeError("Inference tensors do not track version counter.")
        return v

    def is_inference(self) -> bool:
        return self._storage.version is None

    def untyped_storage(self) -> Storage:
        return self._storage

    def data_ptr(self) -> int:
        return id(self._storage) * 64 + B.offset(self._data) * self.dtype.itemsize

    # -- autograd state --------------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        meta = self._meta
        return meta is not None and meta.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        meta = self._meta
        if meta is not None and _recorded(meta) is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use "
                    "a computed variable in a subgraph that doesn't require differentiation use "
                    "var_no_grad = var.detach()."
                )
            return self
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError(
                f"only floating point tensors can require gradients, got dtype {self.dtype.name}"
            )
        if requires_grad and self.is_inference() and not _grad_state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        if meta is None:
            if not requires_grad:
                return self
            self._meta = meta = AutogradMeta()
        meta.requires_grad = bool(requires_grad)  # a no-grad view's own flag: it follows its base too
        return self

    @property
    def grad(self):
        meta = self._meta
        return None if meta is None else meta.grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(
                    f"assigned grad has data of a different size: {fmt_shape(value.shape)} "
                    f"vs {fmt_shape(self.shape)}"
                )
            if value.dtype is not self.dtype:
                raise RuntimeError(
                    f"assigned grad has data of a different type: {value.dtype.name} vs {self.dtype.name}"
                )
        if self._meta is None:
            if value is None:
                return
            self._meta = AutogradMeta()
        self._meta.grad = value

    @property
    def grad_fn(self):
        meta = self._meta
        return None if meta is None else meta.grad_fn

    @property
    def is_leaf(self) -> bool:
        meta = self._meta
        return meta is None or meta.grad_fn is None

    @property
    def retains_grad(self) -> bool:
        meta = self._meta
        return meta is not None and meta.retains_grad

    def retain_grad(self) -> None:
        """Keep this non-leaf's gradient in ``.grad`` after backward."""
        meta = self._meta
        if meta is None or not meta.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if _recorded(meta) is None or meta.retains_grad:
            return
        node = meta.grad_fn  # a view of a no-grad view whose memory changed: refused here
        meta.retains_grad = True
        node.register_prehook(_RetainGrad(self))

    def register_hook(self, hook):
        """``hook(grad) -> None | grad`` runs when this tensor's gradient is computed."""
        meta = self._meta
        if meta is None or not meta.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if meta.grad_fn is not None:
            node = meta.grad_fn
            return node.register_prehook(_TensorHook(hook))  # before retain_grad's (hook_phase)
        if meta.hooks is None:
            meta.hooks = []
        meta.hooks.append(hook)
        return _RemovableHandle(meta.hooks, hook)

    def _set_history(self, node) -> None:
        meta = self._meta
        if meta is None:
            self._meta = AutogradMeta(True, node)
        else:
            meta.requires_grad = True
            meta.grad_fn = node

    def _copy(self) -> "Tensor":
        """``clone()`` without the op's dispatch, for the engine (grad mode is off there)."""
        return _wrap(B.copy(self._data))

    def _accumulate_grad(self, grad) -> None:
        meta = self._meta
        if meta.grad is None:
            meta.grad = grad._copy()
        else:
            meta.grad = meta.grad + grad

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Backpropagate from this tensor into the leaves' ``.grad`` (ADR 0005's engine)."""
        autograd.backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)

    def detach(self) -> "Tensor":
        """A tensor sharing storage and version counter, with no history."""
        return _view(self._data, self)

    def detach_(self) -> "Tensor":
        if getattr(self, "_base", None) is not None:
            raise RuntimeError(_DETACH_VIEW)
        meta = self._meta
        if meta is not None:
            meta.grad_fn = None
            meta.requires_grad = False
        return self

    def _alias(self) -> "Tensor":
        return _view(self._data, self)

    # -- conversion ---------------------------------------------------------------------------------
    def item(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        return B.item(self._data)

    def tolist(self):
        return B.tolist(self._data)

    def numpy(self):
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        to_numpy = getattr(B, "to_numpy", None)
        if to_numpy is not None:
            return to_numpy(self._data)
        try:
            import numpy as np
        except ImportError:
            raise RuntimeError("Numpy is not available") from None
        # the python backend's memory is a Python list: the array is a copy (README: deviations)
        return np.array(self.tolist(), dtype=self.dtype.name if self.dtype is not dt.bool_ else np.bool_)

    def __len__(self):
        shape = B.shape(self._data)
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self):
        if not B.shape(self._data):
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self)))

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self.numel()} elements is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype is not dt.int64 or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self):
        return id(self)

    def __format__(self, spec):
        if not B.shape(self._data):  # a 0-d tensor formats as its number, as in PyTorch
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __contains__(self, element):
        if isinstance(element, (Tensor, bool, int, float)):
            return bool((self == element).any())
        raise RuntimeError(
            f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
        )

    def __repr__(self):
        return _format.format_tensor(self)

    def __reduce__(self):

        return (_rebuild, (self.tolist(), self.dtype.name, self.requires_grad))

    def __deepcopy__(self, memo):
        t = self.detach().clone()
        if self.requires_grad:
            t.requires_grad_()
        return t

    def to(self, *args, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None) -> "Tensor":
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)`` (its dtype and
        device), and the same as keywords; the only device is the CPU."""
        if len(args) > 2 or len(args) == 2 and not is_device_like(args[0]):
            raise TypeError(f"to() received an invalid combination of arguments - got {len(args)} positional arguments")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif is_device_like(a):
                device = a
            elif a is not None:
                dtype = a
        as_device(device)
        t = self if dtype is None else ops.cast(self, dt.as_dtype(dtype))
        return t.clone() if copy and t is self else t

    def type(self, dtype=None):
        if dtype is None:
            return f"kael.{self.dtype.name}"
        return self.to(dtype)

    def float(self):
        return self.to(dt.float32)

    def double(self):
        return self.to(dt.float64)

    def long(self):
        return self.to(dt.int64)

    def int(self):
        return self.to(dt.int64)

    def bool(self):
        return self.to(dt.bool_)

    def cpu(self):
        return self

    def cuda(self, device=None, non_blocking=False):
        as_device("cuda")

    def new_tensor(self, data, dtype=None):
        return creation.tensor(data, dtype=dtype or self.dtype)

    def new_zeros(self, *shape, dtype=None):
        return creation.zeros(*shape, dtype=dtype or self.dtype)

    def new_ones(self, *shape, dtype=None):
        return creation.ones(*shape, dtype=dtype or self.dtype)

    def new_full(self, shape, fill_value, dtype=None):
        return creation.full(shape, fill_value, dtype=dtype or self.dtype)

    def new_empty(self, *shape, dtype=None):
        return self.new_zeros(*shape, dtype=dtype)

    # -- ops ------------------------------------------------------------------------------------------
    # The methods, operators and in-place variants that only call an op are registered beside the
    # op (``method(...)`` at the bottom of each kael/ops/<family>.py; kael/ops/_register.py puts
    # them here). What follows does more than pass its arguments on.
    def __pos__(self):
        return self

    def __invert__(self):
        if self.dtype.is_floating_point:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return ops.bitwise_not(self)

    def __eq__(self, other):
        if not isinstance(other, _COMPARABLE):  # t == None is False, as in PyTorch
            return NotImplemented
        return ops.eq(self, other)

    def __ne__(self, other):
        if not isinstance(other, _COMPARABLE):
            return NotImplemented
        return ops.ne(self, other)

    eq = __eq__
    ne = __ne__

    def mm(self, mat2):
        """The matrix product of two 2-D tensors (``matmul`` without its broadcasting)."""
        if self.ndim != 2:
            raise RuntimeError("self must be a matrix")
        if not isinstance(mat2, Tensor) or mat2.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        return ops.matmul(self, mat2)

    @property
    def T(self):
        return ops.permute(self, *reversed(range(self.ndim)))

    @property
    def mT(self):
        if self.ndim == 0:  # PyTorch gives the 0-d tensor itself back
            return self
        if self.ndim < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
        return ops.transpose(self, -2, -1)

    def contiguous(self):
        return self if self.is_contiguous() else ops.clone(self)

    def __setitem__(self, key, value):
        ops.index_put_(self, key, value)

    def masked_fill_(self, mask, value):
        ops.masked_fill(self.detach(), mask, value)  # PyTorch's checks of mask and value
        self[mask.expand_as(self) if mask.shape != self.shape else mask] = value
        return self

    def register_post_accumulate_grad_hook(self, hook):
        from .autograd import post_accumulate

        return post_accumulate.register(self, hook)


_COMPARABLE = (Tensor, bool, int, float)


def _rebuild(data, dtype_name, requires_grad):
    return creation.tensor(data, dtype=dt.as_dtype(dtype_name), requires_grad=requires_grad)


# The cycle's other half (CONTRIBUTING.md, "The import cycle"): the modules this file's methods
# call import Tensor from here at their top, so they are imported here at the bottom, once it exists.
from . import _format, autograd, creation, ops  # noqa: E402
