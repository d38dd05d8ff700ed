"""Indexing backward with scatter-add (reference solution)."""

import math

import kael


def scatter_add_rows(n, index, src):
    onehot = kael.eye(n, dtype=src.dtype)[index]  # [k, n]: row i is 1 at index[i]
    rows = src.reshape(src.shape[0], math.prod(src.shape[1:]))  # [k, rest] (k may be 0)
    return (onehot.transpose(0, 1) @ rows).reshape((n,) + tuple(src.shape[1:]))


def _positive(index, n):
    return (index + n) % n  # negative positions count from the end


class IndexSelect(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, index):
        dim = dim % x.ndim
        ctx.dim, ctx.n = dim, x.shape[dim]
        ctx.index = _positive(index, x.shape[dim])
        return x[(slice(None),) * dim + (ctx.index,)]

    @staticmethod
    def backward(ctx, g):
        front = g.transpose(0, ctx.dim)  # the selected dim first
        grad = scatter_add_rows(ctx.n, ctx.index, front).transpose(0, ctx.dim)
        return grad, None, None


class Take(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, index):
        ctx.shape, ctx.n = x.shape, x.numel()
        ctx.index = _positive(index.reshape(-1), x.numel())
        return x.reshape(-1)[ctx.index].reshape(index.shape)

    @staticmethod
    def backward(ctx, g):
        return scatter_add_rows(ctx.n, ctx.index, g.reshape(-1)).reshape(ctx.shape), None


def index_select(x, dim, index):
    return IndexSelect.apply(x, dim, index)


def take(x, index):
    return Take.apply(x, index)
