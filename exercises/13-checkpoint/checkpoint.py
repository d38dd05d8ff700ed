"""Activation checkpointing: keep a segment's inputs, throw its activations away, and recompute
them when the backward pass needs them.

    class F(kael.autograd.Function):
        @staticmethod
        def forward(ctx, *args): ...       # runs with grad mode off
        @staticmethod
        def backward(ctx, g): ...          # one gradient per forward argument (None: none)
    ctx.save_for_backward(*tensors); ctx.saved_tensors; ctx.needs_input_grad
    kael.enable_grad(); kael.autograd.grad(outputs, inputs, grad_outputs)
"""

import kael


class Checkpoint(kael.autograd.Function):
    """y = fn(*inputs), saving only the inputs; backward recomputes fn(*inputs) to get gradients."""

    @staticmethod
    def forward(ctx, fn, *inputs):
        raise NotImplementedError("implement forward: keep fn on ctx, save only the inputs, return fn(*inputs)")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement backward: detach the saved inputs, recompute fn under enable_grad, "
                                  "return (None, *gradients of the inputs)")


def checkpoint(fn, *inputs):
    """``fn(*inputs)`` for tensors ``inputs``, recording a single CheckpointBackward node."""
    return Checkpoint.apply(fn, *inputs)
