"""Functions with several outputs, some of whose gradients are None (reference solution)."""

import kael


class Split:
    @staticmethod
    def forward(ctx, x, sizes, dim):
        dim = dim % x.ndim
        ctx.dim, ctx.shape, ctx.dtype = dim, x.shape, x.dtype
        pieces, start = [], 0
        for size in sizes:
            pieces.append(x[(slice(None),) * dim + (slice(start, start + size),)])
            start += size
        ctx.sizes = sizes
        return tuple(pieces)

    @staticmethod
    def backward(ctx, *grads):
        if all(g is None for g in grads):
            return None
        parts = []
        for size, g in zip(ctx.sizes, grads):
            if g is None:  # this piece was not used: its gradient is zero
                shape = list(ctx.shape)
                shape[ctx.dim] = size
                g = kael.zeros(*shape, dtype=ctx.dtype)
            parts.append(g)
        return kael.cat(parts, ctx.dim)


class MeanVar:
    @staticmethod
    def forward(ctx, x, dim):
        dim = dim % x.ndim
        mean = x.mean(dim, keepdim=True)
        centered = x - mean
        var = (centered * centered).mean(dim)
        ctx.dim, ctx.n = dim, x.shape[dim]
        ctx.save_for_backward(centered)
        return mean.squeeze(dim), var

    @staticmethod
    def backward(ctx, g_mean, g_var):
        (centered,) = ctx.saved_tensors
        grad = None
        if g_mean is not None:
            grad = (g_mean / ctx.n).unsqueeze(ctx.dim).expand(*centered.shape)
        if g_var is not None:
            term = g_var.unsqueeze(ctx.dim) * centered * (2.0 / ctx.n)
            grad = term if grad is None else grad + term
        return grad


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

