"""Mutant: lines shapes up from the left (pads at the end), as if broadcasting matched leading
dims; and sums the trailing extra dims away."""

import kael


def _fmt(shape):
    return "[" + ", ".join(str(n) for n in shape) + "]"


def broadcast_shape(a, b):
    n = max(len(a), len(b))
    padded_a = tuple(a) + (1,) * (n - len(a))
    padded_b = tuple(b) + (1,) * (n - len(b))
    out = []
    for x, y in zip(padded_a, padded_b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ValueError(f"shapes {_fmt(a)} and {_fmt(b)} cannot be broadcast")
    return tuple(out)


def sum_to(g, shape):
    shape = tuple(shape)
    gshape = tuple(g.shape)
    extra = len(gshape) - len(shape)
    if extra < 0 or any(n != 1 and n != gshape[i] for i, n in enumerate(shape)):
        raise RuntimeError(f"sum_to: shape {_fmt(gshape)} cannot be reduced to {_fmt(shape)}")
    dims = tuple(i for i, n in enumerate(shape) if n == 1 and gshape[i] != 1)
    out = g.sum(dims, keepdim=True) if dims else g
    if extra:
        out = out.sum(tuple(range(len(shape), len(gshape))))
    return out.reshape(shape)
