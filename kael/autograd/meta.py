"""``AutogradMeta``: the autograd state of a tensor, absent until needed (ADR 0005)."""

from __future__ import annotations

import weakref

from .node import AccumulateGrad

__all__ = ["AutogradMeta"]


class AutogradMeta:
    """requires_grad, grad, grad_fn, and a weak reference to the leaf's AccumulateGrad.

    A tensor that never takes part in differentiation has ``_meta = None``.
    """

    __slots__ = ("requires_grad", "grad", "grad_fn", "accumulator", "retains_grad", "hooks", "no_grad_view")

    def __init__(self, requires_grad=False, grad_fn=None):
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = grad_fn
        self.accumulator = None  # weakref.ref to the leaf's AccumulateGrad
        self.retains_grad = False
        self.hooks = None  # tensor hooks of a leaf, run by its AccumulateGrad
        # a view made under no_grad of a tensor that requires grad: it requires grad, but, as in
        # PyTorch, has no accumulator, so gradients reaching it are dropped
        self.no_grad_view = False

    def get_accumulator(self, tensor) -> AccumulateGrad:
        """The leaf's AccumulateGrad, created on first use and shared while it lives (None for a
        view made under no_grad)."""
        acc = self.accumulator() if self.accumulator is not None else None
        if acc is None:
            if self.no_grad_view:
                return None
            acc = AccumulateGrad(tensor)
            self.accumulator = weakref.ref(acc)
        return acc
