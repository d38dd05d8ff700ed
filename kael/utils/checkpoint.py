"""Activation checkpointing: save a segment's inputs only, recompute the segment in backward.

``checkpoint(fn, *args)`` runs ``fn`` without recording its inside, saves just the tensor
arguments, and in backward runs ``fn`` again with grad mode on to get the gradients: one extra
forward pass traded for the segment's intermediate activations (the notebook's example saves 3
tensors instead of 5).
"""

from __future__ import annotations

from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad
from ..tensor import Tensor

__all__ = ["checkpoint"]


class Checkpoint(Function):
    """y = fn(*args) without saving its activations;  d args = grad of a recomputed fn(*args)"""

    @staticmethod
    def forward(ctx, fn, *args):
        ctx.fn = fn
        ctx.layout = [isinstance(a, Tensor) for a in args]
        ctx.constants = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        out = fn(*args)
        if not isinstance(out, Tensor):
            raise TypeError(f"checkpoint: the function must return one Tensor, got {type(out).__name__}")
        return out

    @staticmethod
    def backward(ctx, g):
        from ..autograd import grad

        saved = iter(ctx.saved_tensors)
        needs = ctx.needs_input_grad[1:]
        args, wanted = [], []
        for is_tensor, constant, need in zip(ctx.layout, ctx.constants, needs):
            if is_tensor:
                t = next(saved).detach()
                if need:
                    t.requires_grad_()
                    wanted.append(t)
                args.append(t)
            else:
                args.append(constant)
        with enable_grad():
            out = ctx.fn(*args)
        grads = iter(grad(out, wanted, g, allow_unused=True)) if wanted else iter(())
        result = [None]
        for is_tensor, need, arg in zip(ctx.layout, needs, args):
            if is_tensor and need:
                gi = next(grads)
                result.append(gi if gi is not None else arg.detach() * 0)
            else:
                result.append(None)
        return tuple(result)


def checkpoint(fn, *args, use_reentrant=False, **kwargs):
    """Run ``fn(*args)`` saving only the tensor arguments; recompute it during backward."""
    if kwargs:
        raise TypeError(f"checkpoint: unexpected keyword arguments {sorted(kwargs)}; pass the function's arguments positionally")
    return Checkpoint.apply(fn, *args)
