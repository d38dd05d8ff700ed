"""Indexing backward: reading an element twice means its gradient arrives twice.

    class F(kael.autograd.Function):
        @staticmethod
        def forward(ctx, x, *args): ...    # runs with grad mode off; return the result
        @staticmethod
        def backward(ctx, g): ...          # one gradient per forward argument (None: none)

Useful: kael.eye(n, dtype=...)[index] (one one-hot row per index), a @ b, t.transpose(a, b),
t.reshape(...), t.tolist(), g.new_zeros(shape).
"""

import kael


def scatter_add_rows(n, index, src):
    """A tensor of shape [n, *src.shape[1:]] (src's dtype), zero except that row ``index[i]``
    gets ``src[i]`` added, for every i. ``index`` is a 1-d int64 tensor (values in [0, n)); a
    row index that repeats receives the sum of all its rows of ``src``."""
    raise NotImplementedError("implement scatter_add_rows: every src row added into its target row")


class IndexSelect(kael.autograd.Function):
    """y = x.index_select(dim, index): the slices of x at ``index`` along ``dim`` (1-d int64
    index, values in [-n, n), repeats allowed)."""

    @staticmethod
    def forward(ctx, x, dim, index):
        raise NotImplementedError("implement IndexSelect.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement IndexSelect.backward: scatter-add g's slices back along dim")


class Take(kael.autograd.Function):
    """y = x.reshape(-1)[index]: elements of x by flat position; ``index`` has any shape (y
    has that shape); negative positions count from the end; repeats allowed."""

    @staticmethod
    def forward(ctx, x, index):
        raise NotImplementedError("implement Take.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Take.backward: every position gets the sum of its gradients")


def index_select(x, dim, index):
    return IndexSelect.apply(x, dim, index)


def take(x, index):
    return Take.apply(x, index)
