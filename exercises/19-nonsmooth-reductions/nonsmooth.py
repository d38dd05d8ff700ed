"""Gradients where the function has no derivative: ties of a max, the kink of relu and abs at 0,
and the NaN that where() lets through from the branch it did not take.

    class F(kael.autograd.Function):
        @staticmethod
        def forward(ctx, x, *args): ...    # runs with grad mode off; return the result
        @staticmethod
        def backward(ctx, g): ...          # one gradient per forward argument (None: none)
    ctx.save_for_backward(*tensors); ctx.saved_tensors

Useful: x.amax(dim), x.argmax(dim), x.max(dim) -> (values, indices), (a == b).to(dtype),
t.unsqueeze(dim), t.sum(dim, keepdim=True), kael.where(cond, a, b), kael.eye(n)[index].
"""

import kael


class Amax(kael.autograd.Function):
    """y = x.amax(dim): the largest value along dim. When several elements tie for the
    maximum, the gradient is shared **evenly** among them (the convention of PyTorch's amax)."""

    @staticmethod
    def forward(ctx, x, dim):
        raise NotImplementedError("implement Amax.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Amax.backward: g split evenly among the tied maxima")


class MaxDim(kael.autograd.Function):
    """values, indices = x.max(dim): indices are the argmax (the **first** maximum on a tie),
    int64, with no gradient; the whole gradient goes to the element at that index."""

    @staticmethod
    def forward(ctx, x, dim):
        raise NotImplementedError("implement MaxDim.forward: return (values, indices)")

    @staticmethod
    def backward(ctx, g, g_indices=None):
        """g: the values' gradient; g_indices, if given, belongs to the indices and is ignored."""
        raise NotImplementedError("implement MaxDim.backward: g only at the argmax")


class Relu(kael.autograd.Function):
    """y = max(x, 0); at x == 0 the gradient is 0."""

    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError("implement Relu.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Relu.backward")


class Abs(kael.autograd.Function):
    """y = |x|; at x == 0 the gradient is 0 (sign(0) == 0)."""

    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError("implement Abs.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Abs.backward")


def safe_sqrt(x):
    """sqrt(x) where x > 0, else 0, built from kael ops (no Function): its gradient must be
    0 where x <= 0, never NaN."""
    raise NotImplementedError("implement safe_sqrt: keep the branch not taken from producing NaN")


def amax(x, dim):
    return Amax.apply(x, dim)


def max_dim(x, dim):
    return MaxDim.apply(x, dim)


def relu(x):
    return Relu.apply(x)


def abs(x):  # noqa: A001
    return Abs.apply(x)
