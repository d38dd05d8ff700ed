"""Functions with several outputs. When only some outputs are used, the others get no gradient:
backward receives None for them, and must still return a gradient of the input's shape.

A kael Function has one differentiable output, so `multi_output` (below, written for you) gives
each output its own node; that node calls your `backward(ctx, *grads)` with its gradient in its
place and None for every other output, exactly the call PyTorch makes when only that output was
used. Your backward must also work when several (or no) gradients are given.
"""

import kael


class Split:
    """split(x, sizes, dim): consecutive pieces of x along dim, of the given sizes."""

    @staticmethod
    def forward(ctx, x, sizes, dim):
        raise NotImplementedError("implement Split.forward: return a tuple of pieces; remember what backward needs on ctx")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("implement Split.backward: join the pieces' gradients, zeros for None; None if all are None")


class MeanVar:
    """mean_var(x, dim): (mean, biased variance) over dim, in one pass over x or two, precise for
    rows far from zero (the statement says how precise)."""

    @staticmethod
    def forward(ctx, x, dim):
        raise NotImplementedError("implement MeanVar.forward: return (mean, var)")

    @staticmethod
    def backward(ctx, g_mean, g_var):
        raise NotImplementedError("implement MeanVar.backward: add the terms of the gradients that are not None")


# -- written for you: one node per output -------------------------------------------------------


class Ctx:
    """The context one call shares between forward and backward (plain attributes too)."""

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors


class _Output(kael.autograd.Function):
    """The node of output k: calls fn.backward with its gradient at k and None elsewhere."""

    @staticmethod
    def forward(ctx, x, out, fn, shared, k, n):
        ctx.fn, ctx.shared, ctx.k, ctx.n = fn, shared, k, n
        return out

    @staticmethod
    def backward(ctx, g):
        grads = [None] * ctx.n
        grads[ctx.k] = g
        return ctx.fn.backward(ctx.shared, *grads), None, None, None, None, None


def multi_output(fn, x, *args):
    """Run fn.forward once and give each of its outputs its own node."""
    shared = Ctx()
    with kael.no_grad():
        outs = fn.forward(shared, x.detach(), *args)
    if not x.requires_grad:
        return tuple(outs)
    return tuple(_Output.apply(x, out, fn, shared, k, len(outs)) for k, out in enumerate(outs))


def split(x, sizes, dim=0):
    return multi_output(Split, x, tuple(sizes), dim)


def mean_var(x, dim=-1):
    return multi_output(MeanVar, x, dim)

