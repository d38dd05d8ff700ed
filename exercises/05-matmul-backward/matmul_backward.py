"""``a @ b`` as a ``kael.autograd.Function``, with rml's MatMul backward.

The forward is kael's ``a @ b`` (numpy's matmul rules: a 1-D ``a`` is a row vector, a 1-D ``b``
a column vector, and both are squeezed back out of the result; dimensions before the last two
are batch dimensions and broadcast). The backward has to undo all of it.
"""

import kael


def sum_to(g, shape):
    """Sum ``g`` down to ``shape``: copy yours from exercise 03 (kael's own ``kael.ops.sum_to``
    is switched off while your code is graded)."""
    raise NotImplementedError("implement sum_to(g, shape): copy yours from exercise 03")


class MatMul(kael.autograd.Function):
    """y = a @ b;  da = g @ b^T;  db = a^T @ g  (vectors promoted as in forward, batch dims
    summed back with sum_to, each gradient reshaped to its input's shape)"""

    @staticmethod
    def forward(ctx, a, b):
        raise NotImplementedError("implement MatMul.forward: save a and b, return a @ b")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement MatMul.backward: promote, multiply, sum_to, reshape")
