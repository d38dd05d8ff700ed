"""Unary math functions and activations: each forward beside its vector-Jacobian product.

Float functions of an integer tensor first promote it to the default float dtype, as PyTorch
does; ``reduce_grad`` casts the gradient back to the input's dtype.
"""

from __future__ import annotations

import math

from .. import dtype as dt
from ..autograd.function import Function, record_unary, unary_node
from ..autograd.grad_mode import state as _grad_state
from ..autograd.meta import AutogradMeta
from ..autograd.saved import save
from ..autograd.saved import _hooks as _saved_hooks
from ..tensor import B, Tensor, _wrap
from ._util import not_implemented, raw_binary, reduce_grad
from .arithmetic import where
from ._register import method

__all__ = [
    "exp", "log", "sqrt", "rsqrt", "abs", "sin", "cos", "tanh", "sigmoid", "relu", "silu", "gelu",
    "square", "sign", "erf", "floor", "ceil",
]


def _float_input(a: Tensor, name: str):
    """Unary float ops promote integer inputs to the default float dtype, as PyTorch does."""
    arr = a._data
    if not B.dtype(arr).is_floating_point:
        arr = B.astype(arr, dt.get_default_dtype())
    return arr


class _Kernel(Function):
    """An op whose forward is one backend kernel (``kernel``) that saves its input or its result,
    as its ``saved_names`` says. ``to_float``: an integer input is promoted to the default float
    dtype first. Its recorded fast path (``_record_kernel``) reads the same three attributes, so
    what the op computes and saves is said once."""

    kernel = None
    to_float = True

    @classmethod
    def forward(cls, ctx, a):
        out = _wrap(B.unary(cls.kernel, _float_input(a, cls.kernel) if cls.to_float else a._data))
        ctx.save_for_backward(out if cls.saved_names == _RESULT else a)
        return out


_RESULT = ("result",)


class Exp(_Kernel):
    """y = exp(a);  da = g * y"""

    saved_names = _RESULT
    kernel = "exp"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return reduce_grad(raw_binary("mul", g, y), ctx.inputs[0])


class Log(_Kernel):
    """y = log(a);  da = g / a"""

    saved_names = ("self",)
    kernel = "log"

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return reduce_grad(g / a, ctx.inputs[0])


class Sqrt(_Kernel):
    """y = sqrt(a);  da = g / (2 * y)"""

    saved_names = _RESULT
    kernel = "sqrt"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return reduce_grad(g / (2 * y), ctx.inputs[0])


class Abs(_Kernel):
    """y = |a|;  da = g * sign(a)"""

    saved_names = ("self",)
    kernel = "abs"
    to_float = False

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * sign(a)


class Sin(_Kernel):
    """y = sin(a);  da = g * cos(a)"""

    saved_names = ("self",)
    kernel = "sin"

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return reduce_grad(g * cos(a), ctx.inputs[0])


class Cos(_Kernel):
    """y = cos(a);  da = -g * sin(a)"""

    saved_names = ("self",)
    kernel = "cos"

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return reduce_grad(-g * sin(a), ctx.inputs[0])


class Tanh(_Kernel):
    """y = tanh(a);  da = g * (1 - y**2)"""

    saved_names = _RESULT
    kernel = "tanh"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return reduce_grad(g * (1 - y * y), ctx.inputs[0])


class Sigmoid(_Kernel):
    """y = 1 / (1 + exp(-a));  da = g * y * (1 - y)"""

    saved_names = _RESULT
    kernel = "sigmoid"

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return reduce_grad(g * y * (1 - y), ctx.inputs[0])


class Relu(_Kernel):
    """y = max(a, 0);  da = g * (y > 0)"""

    saved_names = _RESULT
    kernel = "relu"
    to_float = False

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return where(y <= 0, 0.0, g)  # PyTorch's threshold_backward: relu'(nan) passes g


class Silu(Function):
    """y = a * sigmoid(a);  da = g * s * (1 + a * (1 - s)), s = sigmoid(a)"""

    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        x = _float_input(a, "silu")
        return _wrap(B.binary("mul", x, B.unary("sigmoid", x)))

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        s = sigmoid(a)
        return reduce_grad(g * s * (1 + a * (1 - s)), ctx.inputs[0])


_SQRT_2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


class Gelu(Function):
    """exact: y = a * Phi(a);  da = g * (Phi(a) + a * phi(a))
    tanh:  y = a/2 * (1 + tanh(u)), u = sqrt(2/pi) * (a + 0.044715 a**3);
           da = g * (0.5 * (1 + t) + 0.5 * a * (1 - t**2) * sqrt(2/pi) * (1 + 3 * 0.044715 a**2))"""

    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, approximate="none"):
        ctx.save_for_backward(a)
        ctx.approximate = approximate
        x = _wrap(_float_input(a, "gelu"))
        if approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
            return 0.5 * x * (1 + tanh(inner))
        return x * 0.5 * (1 + erf(x / _SQRT_2))

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        if ctx.approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (a + 0.044715 * a * a * a)
            t = tanh(inner)
            d = 0.5 * (1 + t) + 0.5 * a * (1 - t * t) * _SQRT_2_OVER_PI * (1 + 3 * 0.044715 * a * a)
        else:
            cdf = 0.5 * (1 + erf(a / _SQRT_2))
            pdf = exp(-0.5 * a * a) * _INV_SQRT_2PI
            d = cdf + a * pdf
        return reduce_grad(g * d, ctx.inputs[0]), None


class Square(Function):
    """y = a**2;  da = 2 * g * a"""

    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        arr = a._data
        return _wrap(B.unary("square", B.astype(arr, dt.int64) if B.dtype(arr) is dt.bool_ else arr))  # bool**2 is int64

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * g * a


def _refused(op, dtype):
    """PyTorch's error for ``op`` on an integer or bool tensor it has no kernel for, or None."""
    if dtype is dt.bool_:
        if op == "relu":
            return RuntimeError("Boolean inputs not supported for relu")
        if op in ("abs", "floor", "ceil", "silu"):
            return not_implemented(_KERNELS[op], dtype)
    elif dtype is dt.int64 and op == "silu":
        return not_implemented(_KERNELS[op], dtype)
    return None


_KERNELS = {"abs": "abs_cpu", "floor": "floor_vml_cpu", "ceil": "ceil_vml_cpu", "silu": "silu_cpu"}


def _record_kernel(cls, a, data, dtype):
    """``cls.apply(a)`` for a ``_Kernel`` op when it records a node, the checks made by the
    caller: ``a`` a floating tensor that requires grad, with a plain meta, and no saved-tensor
    hooks. The node, what it saves and the result are those of ``apply``; the kernel runs with no
    forward call and no switch of grad mode (a backend kernel records nothing)."""
    node = unary_node(cls, a, dtype)
    out = _wrap(B.unary(cls.kernel, data))
    node._saved = [save(out if cls.saved_names == _RESULT else a, node)]  # out: no history yet, kept detached
    out._meta = AutogradMeta(True, node)
    return out



def _unary(cls, name):
    refusable = name in _KERNELS or name == "relu"
    plain = AutogradMeta
    state = _grad_state
    kernel = issubclass(cls, _Kernel)

    def fn(a):
        if type(a) is Tensor and state.enabled:  # the usual recorded op, without apply's loops
            meta = a._meta
            if type(meta) is plain and meta.requires_grad and not _saved_hooks.stack:
                data = a._data
                dtype = B.dtype(data)
                if dtype.is_floating_point:
                    return _record_kernel(cls, a, data, dtype) if kernel else record_unary(cls, a)
        if not isinstance(a, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(a).__name__}")
        if refusable and not B.dtype(a._data).is_floating_point:
            error = _refused(name, B.dtype(a._data))
            if error is not None:
                raise error
        return cls.apply(a)

    fn.__name__ = name
    fn.__doc__ = cls.__doc__
    return fn


exp = _unary(Exp, "exp")
log = _unary(Log, "log")
sqrt = _unary(Sqrt, "sqrt")
abs = _unary(Abs, "abs")
sin = _unary(Sin, "sin")
cos = _unary(Cos, "cos")
tanh = _unary(Tanh, "tanh")
sigmoid = _unary(Sigmoid, "sigmoid")
relu = _unary(Relu, "relu")
silu = _unary(Silu, "silu")
square = _unary(Square, "square")


class Rsqrt(Function):
    """y = 1 / sqrt(a);  da = -0.5 * g * y**3 (PyTorch saves the result, so an in-place change
    to it before backward raises the version error)"""

    saved_names = ("result",)

    @staticmethod
    def forward(ctx, a):
        x = _float_input(a, "rsqrt")
        out = _wrap(B.binary("div", B.full((), 1, B.dtype(x)), B.unary("sqrt", x)))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return reduce_grad(-0.5 * g * (y * y * y), ctx.inputs[0])


rsqrt = _unary(Rsqrt, "rsqrt")


def gelu(a, approximate="none"):
    """GELU, exact (``approximate="none"``, with erf) or the tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    if not a.dtype.is_floating_point:
        raise not_implemented("GeluKernelImpl", a.dtype)
    return Gelu.apply(a, approximate)


class Erf(_Kernel):
    """y = erf(a);  da = g * 2 / sqrt(pi) * exp(-a**2)"""

    saved_names = ("self",)
    kernel = "erf"

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return reduce_grad(g * (_TWO_OVER_SQRT_PI * exp(-(a * a))), ctx.inputs[0])


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class _PiecewiseConstant(Function):
    """y = op(a) for a step function (sign, floor, ceil);  da = 0, as PyTorch gives it"""

    op = None

    @classmethod
    def forward(cls, ctx, a):
        return _wrap(B.unary(cls.op, a._data))

    @staticmethod
    def backward(ctx, g):
        return g.new_zeros(ctx.inputs[0].shape)


class Sign(_PiecewiseConstant):
    op = "sign"


class Floor(_PiecewiseConstant):
    op = "floor"


class Ceil(_PiecewiseConstant):
    op = "ceil"


erf = _unary(Erf, "erf")
sign = _unary(Sign, "sign")
floor = _unary(Floor, "floor")
ceil = _unary(Ceil, "ceil")


# Tensor methods of these ops (kael/ops/_register.py)
method(exp)
method(log)
method(sqrt)
method(rsqrt)
method(sin)
method(cos)
method(tanh)
method(sigmoid)
method(relu)
method(square)
method(sign)
method(erf)
method(floor)
method(ceil)
method(abs, "__abs__", "abs")
