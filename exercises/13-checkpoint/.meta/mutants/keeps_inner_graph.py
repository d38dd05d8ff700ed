"""Mutant: the forward runs fn with grad mode on and keeps its graph for backward: the gradients
are right, but every activation inside fn is saved, which is what checkpointing must avoid."""

import kael


class Checkpoint(kael.autograd.Function):
    @staticmethod
    def forward(ctx, fn, *inputs):
        ctx.args = inputs
        with kael.enable_grad():
            ctx.out = fn(*inputs)
        return ctx.out.detach()

    @staticmethod
    def backward(ctx, g):
        needs = ctx.needs_input_grad[1:]
        wanted = [x for x, need in zip(ctx.args, needs) if need]
        grads = iter(kael.autograd.grad(ctx.out, wanted, g, allow_unused=True))
        return (None,) + tuple(next(grads) if need else None for need in needs)


def checkpoint(fn, *inputs):
    return Checkpoint.apply(fn, *inputs)
