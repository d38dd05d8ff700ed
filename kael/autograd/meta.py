"""``AutogradMeta``: the autograd state of a tensor, absent until needed (ADR 0005)."""

from __future__ import annotations

import weakref

from .node import AccumulateGrad

_ref = weakref.ref

__all__ = ["AutogradMeta", "NoGradViewMeta"]


class AutogradMeta:
    """requires_grad, grad, grad_fn, and a weak reference to the leaf's AccumulateGrad.

    A tensor that never takes part in differentiation has ``_meta = None``.
    """

    __slots__ = ("requires_grad", "grad", "grad_fn", "accumulator", "retains_grad", "hooks")

    def __init__(self, requires_grad=False, grad_fn=None):
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = grad_fn
        self.accumulator = None  # weakref.ref to the leaf's AccumulateGrad
        self.retains_grad = False
        self.hooks = None  # tensor hooks of a leaf, run by its AccumulateGrad

    def get_accumulator(self, tensor) -> AccumulateGrad:
        """The leaf's AccumulateGrad, created on first use and shared while it lives."""
        ref = self.accumulator
        acc = ref() if ref is not None else None
        if acc is None:
            acc = AccumulateGrad(tensor)
            self.accumulator = _ref(acc)
        return acc


_FORBIDDEN = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your "
    "code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
)


class NoGradViewMeta(AutogradMeta):
    """A view made under ``no_grad`` of a tensor that requires grad, or a view of such a view.

    As in PyTorch (``CreationMeta::NO_GRAD_MODE``): it requires grad while its base does (or
    while its own flag, set by ``requires_grad_(True)``, is on); without its own flag it has no
    accumulator, so gradients reaching it are dropped; writing into it in place with grad mode on
    is refused, and once its memory was written in place after it was made, reading its
    ``grad_fn`` (using it in a recorded op, ``is_leaf``, ``backward(inputs=)``) is refused.
    Only these tensors pay for the properties below; every other tensor has a plain slot.
    """

    __slots__ = ("own", "base", "storage", "version", "_grad_fn")

    def __init__(self, base, storage):
        self.own = False
        self._grad_fn = None
        super().__init__()
        self.base = base  # the root base (a tensor that is no view)
        self.storage = storage
        self.version = storage.version

    @property
    def requires_grad(self):
        return self.own or self._grad_fn is not None or self.base.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.own = value

    @property
    def grad_fn(self):
        fn = self._grad_fn
        if fn is None and not self.base.requires_grad:
            return None
        if self.storage.version != self.version:
            raise RuntimeError(self.message("its base or another view of its base has been"))
        return fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    def message(self, modified):
        """PyTorch's error for an in-place write that involves this view."""
        fn = self._grad_fn
        if fn is None:
            prefix = "A view was created in"
        else:
            name = type(fn).__name__
            prefix = f"Output 0 of {name[:-8] if name.endswith('Backward') else name} is a view of a view which was created in"
        return f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled.{_FORBIDDEN}"

    def get_accumulator(self, tensor):
        return super().get_accumulator(tensor) if self.own else None
