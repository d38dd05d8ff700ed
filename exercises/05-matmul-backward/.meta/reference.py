"""a @ b as a kael.autograd.Function, with rml's MatMul backward (reference solution)."""

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
        a_vec, b_vec = a.dim() == 1, b.dim() == 1
        am = a.unsqueeze(0) if a_vec else a          # [k] -> [1, k]
        bm = b.unsqueeze(-1) if b_vec else b         # [k] -> [k, 1]
        if b_vec:
            g = g.unsqueeze(-1)                      # put back the column dimension
        if a_vec:
            g = g.unsqueeze(-2)                      # put back the row dimension
        da = g @ bm.transpose(-1, -2)
        db = am.transpose(-1, -2) @ g
        da = sum_to(da, am.shape).reshape(a.shape)
        db = sum_to(db, bm.shape).reshape(b.shape)
        return da, db
