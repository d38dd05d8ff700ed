"""Mutant: backward recomputes fn on the saved tensors themselves (not detached copies) and
calls out.backward(g) inside backward: the inner pass already adds into the leaves' .grad, then the
returned gradients are added again."""

import kael


class Checkpoint(kael.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *inputs):
        ctx.fn = fn
        ctx.save_for_backward(*inputs)
        return fn(*inputs)

    @staticmethod
    def backward(ctx, g):
        inputs = ctx.saved_tensors
        with kael.enable_grad():
            out = ctx.fn(*inputs)
        out.backward(g)
        return (None,) + tuple(x.grad for x in inputs)


def checkpoint(fn, *inputs):
    return Checkpoint.apply(fn, *inputs)
