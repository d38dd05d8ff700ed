"""The backward of views: a view's gradient flows into its base.

    class F(kael.autograd.Function):
        @staticmethod
        def forward(ctx, x, *args): ...    # runs with grad mode off; return the result
        @staticmethod
        def backward(ctx, g): ...          # one gradient per forward argument (None: none)
    F.apply(x, *args); ctx.some_name = value keeps plain data for backward

Useful: g.new_zeros(shape), t[key] = value, kael.sum_to(g, shape), g.transpose(a, b),
kael.eye(n, dtype=g.dtype)[index] (a one-hot matrix), t.reshape(-1).
"""

import kael


def strided_positions(size, stride, offset):
    """The flat positions (into the base, read in row-major order) that a strided view of
    ``size`` with ``stride`` and storage ``offset`` reads, in the view's row-major order."""
    raise NotImplementedError("implement strided_positions: offset + sum(i_k * stride_k) for every index")


class Narrow(kael.autograd.Function):
    """x.narrow(dim, start, length): a slice along one dim, a view of x."""

    @staticmethod
    def forward(ctx, x, dim, start, length):
        raise NotImplementedError("implement Narrow.forward: return a view of x (no copy)")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Narrow.backward: zeros of x's shape with g in the slice")


class Transpose(kael.autograd.Function):
    """x.transpose(dim0, dim1)."""

    @staticmethod
    def forward(ctx, x, dim0, dim1):
        raise NotImplementedError("implement Transpose.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Transpose.backward: transpose g back")


class Expand(kael.autograd.Function):
    """x.expand(*shape): size-1 dims repeated and new leading dims, without copying."""

    @staticmethod
    def forward(ctx, x, shape):
        raise NotImplementedError("implement Expand.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Expand.backward: sum g over every repeated dim")


class AsStrided(kael.autograd.Function):
    """x.as_strided(size, stride, offset) over x's elements in row-major order; windows may
    overlap (stride smaller than the window), so one base element can appear many times."""

    @staticmethod
    def forward(ctx, x, size, stride, offset):
        raise NotImplementedError("implement AsStrided.forward: pick strided_positions(...) of x.reshape(-1)")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement AsStrided.backward: add (not assign) g into each position it was read from")


def narrow(x, dim, start, length):
    return Narrow.apply(x, dim, start, length)


def transpose(x, dim0, dim1):
    return Transpose.apply(x, dim0, dim1)


def expand(x, *shape):
    return Expand.apply(x, tuple(shape))


def as_strided(x, size, stride, offset=0):
    return AsStrided.apply(x, tuple(size), tuple(stride), offset)
