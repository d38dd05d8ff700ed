"""Binary operations that broadcast, as ``kael.autograd.Function``s.

The forward broadcasts (kael's ``+``, ``-``, ``*``, ``/`` do it for you); the backward must
give each input a gradient of **its own shape**: compute the gradient at the broadcast shape,
then sum it down with ``sum_to`` (exercise 03). kael checks the shapes and names your node if
one is wrong.
"""

import kael


def sum_to(g, shape):
    """Sum ``g`` down to ``shape``: copy yours from exercise 03 (kael's own ``kael.ops.sum_to``
    is switched off while your code is graded)."""
    raise NotImplementedError("implement sum_to(g, shape): copy yours from exercise 03")


class Add(kael.autograd.Function):
    """y = a + b;  da = sum_to(g, a.shape);  db = sum_to(g, b.shape)"""

    @staticmethod
    def forward(ctx, a, b):
        raise NotImplementedError("implement Add.forward: remember the shapes, return a + b")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Add.backward")


class Sub(kael.autograd.Function):
    """y = a - b;  da = sum_to(g, a.shape);  db = -sum_to(g, b.shape)"""

    @staticmethod
    def forward(ctx, a, b):
        raise NotImplementedError("implement Sub.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Sub.backward")


class Mul(kael.autograd.Function):
    """y = a * b;  da = sum_to(g * b, a.shape);  db = sum_to(g * a, b.shape)"""

    @staticmethod
    def forward(ctx, a, b):
        raise NotImplementedError("implement Mul.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Mul.backward")


class Div(kael.autograd.Function):
    """y = a / b;  da = sum_to(g / b, a.shape);  db = sum_to(-g * a / b**2, b.shape)"""

    @staticmethod
    def forward(ctx, a, b):
        raise NotImplementedError("implement Div.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Div.backward")
