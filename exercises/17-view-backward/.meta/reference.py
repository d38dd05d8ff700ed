"""The backward of views: narrow, transpose, expand and as_strided (reference solution)."""

import kael


def strided_positions(size, stride, offset):
    positions = [offset]
    for n, s in zip(size, stride):
        positions = [p + i * s for p in positions for i in range(n)]
    return positions


class Narrow(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim, start, length):
        ctx.key = (slice(None),) * (dim % x.ndim) + (slice(start, start + length),)
        ctx.shape = x.shape
        return x[ctx.key]

    @staticmethod
    def backward(ctx, g):
        out = g.new_zeros(ctx.shape)
        out[ctx.key] = g
        return out, None, None, None


class Transpose(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return x.transpose(dim0, dim1)

    @staticmethod
    def backward(ctx, g):
        return g.transpose(*ctx.dims), None, None


class Expand(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, shape):
        ctx.shape = x.shape
        return x.expand(*shape)

    @staticmethod
    def backward(ctx, g):
        return kael.sum_to(g, ctx.shape), None


class AsStrided(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, size, stride, offset):
        positions = strided_positions(size, stride, offset)
        ctx.positions = positions
        ctx.shape = x.shape
        ctx.numel = x.numel()
        return x.reshape(-1)[kael.tensor(positions, dtype=kael.int64)].reshape(size)

    @staticmethod
    def backward(ctx, g):
        onehot = kael.eye(ctx.numel, dtype=g.dtype)[kael.tensor(ctx.positions, dtype=kael.int64)]
        flat = g.reshape(-1) @ onehot  # row p of onehot adds g's p-th element to its position
        return flat.reshape(ctx.shape), None, None, None


def narrow(x, dim, start, length):
    return Narrow.apply(x, dim, start, length)


def transpose(x, dim0, dim1):
    return Transpose.apply(x, dim0, dim1)


def expand(x, *shape):
    return Expand.apply(x, tuple(shape))


def as_strided(x, size, stride, offset=0):
    return AsStrided.apply(x, tuple(size), tuple(stride), offset)
