"""Mutant: the quotient rule with the sign lost: db = g * a / b**2."""

import kael


class Mul(kael.autograd.Function):
    """y = a * b;  da = g * b;  db = g * a"""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g * b, g * a


class Div(kael.autograd.Function):
    """y = a / b;  da = g / b;  db = -g * a / b**2"""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a / b

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        return g / b, g * a / (b * b)


class Exp(kael.autograd.Function):
    """y = exp(x);  dx = g * y"""

    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class Log(kael.autograd.Function):
    """y = log(x);  dx = g / x"""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.log()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g / x


class Tanh(kael.autograd.Function):
    """y = tanh(x);  dx = g * (1 - y**2)"""

    @staticmethod
    def forward(ctx, x):
        y = x.tanh()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * (1 - y * y)


class Sigmoid(kael.autograd.Function):
    """y = 1 / (1 + exp(-x));  dx = g * y * (1 - y)"""

    @staticmethod
    def forward(ctx, x):
        y = 1 / (1 + (-x).exp())
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y * (1 - y)
