"""Mutant: in Mul and Div, sums the incoming gradient down first and multiplies afterwards
(sum_to(g, b.shape) * a summed), which is not the sum of the products."""

import kael


def sum_to(g, shape):
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    out = g.sum(dims, keepdim=True) if dims else g
    return out.reshape(shape)


class Add(kael.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = (a.shape, b.shape)
        return a + b

    @staticmethod
    def backward(ctx, g):
        sa, sb = ctx.shapes
        return sum_to(g, sa), sum_to(g, sb)


class Sub(kael.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = (a.shape, b.shape)
        return a - b

    @staticmethod
    def backward(ctx, g):
        sa, sb = ctx.shapes
        return sum_to(g, sa), -sum_to(g, sb)


class Mul(kael.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return sum_to(g, a.shape) * sum_to(b, a.shape), sum_to(g, b.shape) * sum_to(a, b.shape)


class Div(kael.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a / b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return sum_to(g, a.shape) / sum_to(b, a.shape), -sum_to(g, b.shape) * sum_to(a, b.shape) / (b * b)
