"""Broadcasting forward, and its undoing in backward (rml's SumTo)."""

import kael


def broadcast_shape(a, b):
    """The shape that shapes ``a`` and ``b`` (tuples of ints) broadcast to, as a tuple.

    Raise ``ValueError("shapes [2, 3] and [4] cannot be broadcast")`` when they don't fit."""
    raise NotImplementedError("implement broadcast_shape(a, b): align from the right, 1 stretches")


def sum_to(g, shape):
    """Sum the tensor ``g`` down to ``shape``: the gradient of an operand that was broadcast
    from ``shape`` to ``g.shape``. Returns a tensor of exactly ``shape``.

    Raise ``RuntimeError("sum_to: shape [2, 3] cannot be reduced to [4]")`` when ``shape`` does
    not broadcast to ``g.shape``."""
    raise NotImplementedError("implement sum_to(g, shape): sum the leading dims, then keep-dim sums")
