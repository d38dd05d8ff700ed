"""Mutant: sums away the extra leading dims but forgets the dims that are 1 in the target
(so a [2, 3] gradient for a [1, 3] operand keeps both rows)."""

import kael


def _fmt(shape):
    return "[" + ", ".join(str(n) for n in shape) + "]"


def broadcast_shape(a, b):
    n = max(len(a), len(b))
    padded_a = (1,) * (n - len(a)) + tuple(a)
    padded_b = (1,) * (n - len(b)) + tuple(b)
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
    lead = len(gshape) - len(shape)
    if lead < 0 or any(n != 1 and n != gshape[lead + i] for i, n in enumerate(shape)):
        raise RuntimeError(f"sum_to: shape {_fmt(gshape)} cannot be reduced to {_fmt(shape)}")
    for _ in range(lead):
        g = g.sum(0)
    return g
