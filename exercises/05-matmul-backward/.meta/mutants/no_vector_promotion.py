"""Mutant: treats every operand as a matrix: right for 2-D and batched operands, wrong (or
crashing) when a or b is a vector."""

import kael


def sum_to(g, shape):
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    out = g.sum(dims, keepdim=True) if dims else g
    return out.reshape(shape)


class MatMul(kael.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        am, bm = a, b
        da = g @ bm.transpose(-1, -2)
        db = am.transpose(-1, -2) @ g
        da = sum_to(da, am.shape).reshape(a.shape)
        db = sum_to(db, bm.shape).reshape(b.shape)
        return da, db
