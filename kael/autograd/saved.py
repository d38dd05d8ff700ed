"""Saved tensors with version checks (ADR 0005), and ``saved_tensors_hooks``.

A ``SavedTensor`` keeps a detached handle and the storage version at save time. Reading it after
an in-place change to that storage raises instead of returning wrong values. Hooks installed by
``saved_tensors_hooks(pack, unpack)`` see every tensor as it is saved (``pack``) and give it back
when backward needs it (``unpack``); the notebook counts activation memory this way.
"""

from __future__ import annotations

import threading

from ..backend import get_backend
from ..size import Size
from .source import describe, modification_of
from .source import state as _source

__all__ = ["SavedTensor", "save", "saved_tensors_hooks", "save_on_cpu", "saving_node"]


class _HookStack(threading.local):
    def __init__(self):
        self.stack = []
        self.saving = None  # the node whose tensor a pack hook is packing, while it runs


def saving_node():
    """The node saving the tensor that the running pack hook was given (None outside a pack
    hook). Set only on the hook path, so saving without hooks pays nothing for it."""
    return _hooks.saving


_hooks = _HookStack()
_B = get_backend()
_new = object.__new__


class saved_tensors_hooks:
    """``with saved_tensors_hooks(pack, unpack):`` every tensor saved for backward inside the
    block goes through ``pack`` when saved and ``unpack`` when used."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _hooks.stack.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        _hooks.stack.pop()
        return False


class save_on_cpu(saved_tensors_hooks):
    """PyTorch's hooks that move saved tensors to CPU memory until backward. kael's tensors are
    all in CPU memory already, so a saved tensor is kept as it is (no copy)."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(_keep, _keep)


def _keep(tensor):
    return tensor


_DETACHED = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This is "
    "not supported, please use out-of-place `.detach()` instead"
)


class SavedTensor:
    """A tensor saved by ``node`` for its backward (made by ``save(tensor, node)``), checked
    against in-place changes.

    Without hooks it keeps the backend array the tensor had at save time (``_array``), from which
    its shape, dtype and size are read when asked, so saving makes no backend call (and
    ``t.data = other`` after saving does not change them). An input that requires grad is kept as
    it is (``_data``: PyTorch unpacks it with its requires_grad and grad_fn); any other tensor, an
    output among them, is kept detached. With a pack hook, the hook's result is all it keeps of
    the tensor (``_hook``, with the shape and dtype): a hook that moves the values elsewhere frees
    their memory."""

    __slots__ = ("_data", "_array", "_storage", "_version", "_node", "_hook", "_where", "_history")

    def _pack(self, tensor, node):
        """Keep what the innermost pack hook makes of ``tensor``, and its shape and dtype."""
        pack, unpack = _hooks.stack[-1]
        outer, _hooks.saving = _hooks.saving, node
        try:
            packed = pack(tensor)
        finally:
            _hooks.saving = outer
        data = tensor._data
        self._hook = (packed, unpack, _B.shape(data), _B.dtype(data))
        self._data = None
        self._array = None

    @property
    def _packed(self):
        """What the pack hook returned (None without hooks)."""
        return self._hook[0] if self._hook is not None else None

    @property
    def shape(self):
        """The shape the tensor had when it was saved."""
        return Size(self._hook[2] if self._array is None else _B.shape(self._array))

    @property
    def dtype(self):
        """The dtype the tensor had when it was saved."""
        return self._hook[3] if self._array is None else _B.dtype(self._array)

    @property
    def version(self) -> int:
        """The storage version when the tensor was saved."""
        return self._version

    @property
    def current_version(self) -> int:
        return self._storage.version

    @property
    def nbytes(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n * self.dtype.itemsize

    def _origin(self) -> str:
        """``saved by MulBackward`` and, when source lines were recorded, where it was saved
        and where its memory was last modified in place."""
        text = f"saved by {self._node.__name__}"
        if self._where is not None:
            text += f" at {describe(self._where)}"
        modified = modification_of(self._storage)
        if modified is not None:
            text += f"; modified at {describe(modified)}"
        return text

    def unpack(self):
        if self._history is not None and self._history.grad_fn is None:
            raise RuntimeError(_DETACHED)
        if self._storage.version != self._version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: expected version {self._version}, got {self._storage.version} "
                f"({self._origin()})"
            )
        if self._hook is not None:
            return self._hook[1](self._hook[0])
        return self._data


def save(tensor, node) -> SavedTensor:
    """``tensor`` saved by ``node`` for its backward: kept as it is (or detached), or packed by the
    innermost saved-tensor hook. A function, not ``SavedTensor.__init__``: saving is on the path
    of every recorded mul, and a plain call is the cheapest way to build one."""
    saved = _new(SavedTensor)
    storage = tensor._storage
    version = saved._version = storage.version
    if version is None:
        raise RuntimeError("Inference tensors cannot be saved for backward")
    saved._storage = storage
    saved._node = type(node)  # for node.name(), without holding the node
    # the line that recorded the node (one frame lookup per node, made by Function.apply)
    saved._where = node.__dict__.get("_where") if _source.enabled else None
    meta = tensor._meta  # an input with history: detach_() of it before backward is refused
    if _hooks.stack:
        saved._history = meta if meta is not None and meta.grad_fn is not None else None
        saved._pack(tensor, node)
        return saved
    saved._hook = None
    saved._array = tensor._data
    if meta is None:
        saved._history = None
        saved._data = tensor.detach()
    else:
        saved._history = meta if meta.grad_fn is not None else None
        saved._data = tensor if meta.requires_grad else tensor.detach()
    return saved
