"""Elementwise operations as ``kael.autograd.Function``s, each with its vector-Jacobian product.

``forward(ctx, ...)`` computes the result with kael's tensor operations (grad mode is off inside
it) and saves what backward needs with ``ctx.save_for_backward(...)``; ``backward(ctx, g)``
reads them back with ``ctx.saved_tensors`` and returns one gradient per forward input (``None``
where ``ctx.needs_input_grad[i]`` is False, if you like). Operands have equal shapes here.
"""

import kael


class Mul(kael.autograd.Function):
    """y = a * b;  da = g * b;  db = g * a"""

    @staticmethod
    def forward(ctx, a, b):
        raise NotImplementedError("implement Mul.forward: save a and b, return a * b")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Mul.backward: return g * b, g * a")


class Div(kael.autograd.Function):
    """y = a / b;  da = g / b;  db = -g * a / b**2"""

    @staticmethod
    def forward(ctx, a, b):
        raise NotImplementedError("implement Div.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Div.backward")


class Exp(kael.autograd.Function):
    """y = exp(x);  dx = g * y  (save the output, not the input)"""

    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError("implement Exp.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Exp.backward")


class Log(kael.autograd.Function):
    """y = log(x);  dx = g / x"""

    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError("implement Log.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Log.backward")


class Tanh(kael.autograd.Function):
    """y = tanh(x);  dx = g * (1 - y**2)"""

    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError("implement Tanh.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Tanh.backward")


class Sigmoid(kael.autograd.Function):
    """y = 1 / (1 + exp(-x));  dx = g * y * (1 - y)"""

    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError("implement Sigmoid.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Sigmoid.backward")
