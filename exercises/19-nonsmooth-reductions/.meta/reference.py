"""Gradients at non-smooth points (reference solution)."""

import kael


class Amax(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        y = x.amax(dim)
        ctx.dim = dim
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        mask = (x == y.unsqueeze(ctx.dim)).to(g.dtype)
        share = mask / mask.sum(ctx.dim, keepdim=True)
        return g.unsqueeze(ctx.dim) * share, None


class MaxDim(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        dim = dim % x.ndim
        indices = x.argmax(dim)
        ctx.dim, ctx.n = dim, x.shape[dim]
        ctx.save_for_backward(indices)
        return x.amax(dim), indices

    @staticmethod
    def backward(ctx, g, g_indices=None):  # the indices (an output too) have no gradient
        (indices,) = ctx.saved_tensors
        onehot = kael.eye(ctx.n, dtype=g.dtype)[indices]  # [..., n]: 1 at the argmax
        last = onehot.ndim - 1
        onehot = onehot.permute(*range(ctx.dim), last, *range(ctx.dim, last))  # n back at dim
        return onehot * g.unsqueeze(ctx.dim), None


class Relu(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.relu()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x > 0).to(g.dtype)


class Abs(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.abs()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x.sign()


def safe_sqrt(x):
    positive = x > 0
    # The branch not taken still runs backward: feed it a harmless input (1), not x.
    inner = kael.where(positive, x, kael.ones_like(x))
    return kael.where(positive, inner.sqrt(), kael.zeros_like(x))


def amax(x, dim):
    return Amax.apply(x, dim)


def max_dim(x, dim):
    return MaxDim.apply(x, dim)


def relu(x):
    return Relu.apply(x)


def abs(x):  # noqa: A001
    return Abs.apply(x)
