"""Arithmetic, selection and comparison ops: each forward beside its vector-Jacobian product.

``g`` is the gradient arriving from the output; broadcasting is undone only by ``reduce_grad``
(``sum_to``, then a cast back to the input's dtype).
"""

from __future__ import annotations

from .. import dtype as dt
from ..autograd.function import Function, node_input
from ..autograd.grad_mode import state as _grad_state
from ..autograd.meta import AutogradMeta, NoGradViewMeta
from ..autograd.node import NodeInput
from ..autograd.saved import save
from ..autograd.saved import _hooks as _saved_hooks
from ..autograd.source import here
from ..autograd.source import state as _source
from ..backend.errors import broadcast_shapes
from ..tensor import B, Tensor, _wrap
from ._util import not_implemented, operands, promoted, raw_binary, raw_neg, reduce_grad
from ._register import method, operator

__all__ = [
    "add", "sub", "mul", "div", "true_divide", "neg", "pow", "clamp", "clip", "maximum", "minimum",
    "where", "cast", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
    "logical_not", "floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not",
]


def _common_dtype(a, b, ta, tb):
    """PyTorch promotion of two tensors: a 0-d tensor does not widen a dimensioned one of its
    category (``float32_tensor * float64_scalar_tensor`` stays float32)."""
    a0, b0 = not B.shape(a._data), not B.shape(b._data)
    if a0 is not b0 and ta.category == tb.category:
        return tb if a0 else ta
    return dt.promote_types(ta, tb)


def _binary_forward(op, a, b):
    da, db = a._data, b._data
    ta, tb = B.dtype(da), B.dtype(db)
    if ta is tb and (ta.is_floating_point or op != "div"):
        return _wrap(B.binary(op, da, db))
    dtype = _common_dtype(a, b, ta, tb)
    if op == "div" and not dtype.is_floating_point:
        dtype = dt.get_default_dtype()
    return _wrap(B.binary(op, promoted(a, dtype), promoted(b, dtype)))


def _grads(ctx, ga, gb):
    na, nb = ctx.inputs
    need = ctx.needs_input_grad
    return (reduce_grad(ga, na) if need[0] else None, reduce_grad(gb, nb) if need[1] else None)


class Add(Function):
    """y = a + b;  da = g;  db = g"""

    @staticmethod
    def forward(ctx, a, b):
        return _binary_forward("add", a, b)

    @staticmethod
    def backward(ctx, g):
        return _grads(ctx, g, g)


class Sub(Function):
    """y = a - b;  da = g;  db = -g"""

    @staticmethod
    def forward(ctx, a, b):
        return _binary_forward("sub", a, b)

    @staticmethod
    def backward(ctx, g):
        return _grads(ctx, g, raw_neg(g) if ctx.needs_input_grad[1] else g)


class Mul(Function):
    """y = a * b;  da = g * b;  db = g * a"""

    saved_names = ("other", "self")  # PyTorch packs b first: a pack hook sees b, then a

    @staticmethod
    def saves(a, b, need):
        """What backward reads, in ``saved_names`` order (the fused path saves the same)."""
        return (b if need[0] else None, a if need[1] else None)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(*Mul.saves(a, b, ctx.needs_input_grad))
        return _binary_forward("mul", a, b)

    @staticmethod
    def backward(ctx, g):
        b, a = ctx.saved_tensors
        need = ctx.needs_input_grad
        return _grads(ctx, raw_binary("mul", g, b) if need[0] else None, raw_binary("mul", g, a) if need[1] else None)


class Div(Function):
    """y = a / b;  da = g / b;  db = -g * a / b**2"""

    saved_names = ("self", "other")

    @staticmethod
    def saves(a, b, need):
        """What backward reads, in ``saved_names`` order (the fused path saves the same)."""
        return (a if need[1] else None, b)

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(*Div.saves(a, b, ctx.needs_input_grad))
        return _binary_forward("div", a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        gb = None
        if need[1]:
            gb = raw_binary("div", raw_binary("mul", raw_neg(g), a), raw_binary("mul", b, b))
        return _grads(ctx, raw_binary("div", g, b) if need[0] else None, gb)


class Pow(Function):
    """y = a ** b;  da = g * b * a**(b-1);  db = g * y * log(a)"""

    saved_names = ("self", "exponent", "result")

    @staticmethod
    def forward(ctx, a, b):
        out = _binary_forward("pow", a, b)
        if ctx.needs_input_grad[1]:
            ctx.save_for_backward(a, b, out)  # the result itself: an in-place change to it raises the version error
        else:
            ctx.save_for_backward(a, b)
        return out

    @staticmethod
    def backward(ctx, g):
        saved = ctx.saved_tensors
        a, b = saved[0], saved[1]
        need = ctx.needs_input_grad
        ga = None
        if need[0]:
            # 0 where b == 0 (PyTorch's convention): a**0 is constant, even at a == 0 (0 * 0**-1 is nan).
            ga = where(b == 0, 0.0, g * b * a ** (b - 1))
        gb = None
        if need[1]:
            # d/db a**b = a**b * log(a)
            # defined as 0 where a == 0 and b >= 0 (PyTorch's convention; 0**-1 gives -inf)
            y = saved[2]
            gb = where((a == 0) & (b >= 0), 0.0, g * y * a.log())
        return _grads(ctx, ga, gb)


def _recorder(cls, op):
    """What ``cls.apply(a, b)`` does when it records a node, with the checks already made: two
    tensors of one floating dtype, plain metas, no saved-tensor hooks. Add and Sub save nothing;
    Mul and Div save what their ``saves`` says, as their forward does. (Written out for two
    operands: this is the most frequent path of all, and a call or comprehension less is a
    tenth of a microsecond per op.)"""
    node_class = cls._node_class
    saves = getattr(cls, "saves", None)
    binary = B.binary

    def record(a, b, ma, mb, da, db, dtype):
        # a or b None: a Python number, whose input is a constant 0-d one (no edge)
        if a is None:
            need_a, input_a = False, _SCALAR_INPUTS[dtype]
        else:
            need_a = ma is not None and ma.requires_grad
            input_a = node_input(a, ma, dtype)
        if b is None:
            need_b, input_b = False, _SCALAR_INPUTS[dtype]
        else:
            need_b = mb is not None and mb.requires_grad
            input_b = node_input(b, mb, dtype)
        needs = (need_a, need_b)
        node = node_class((input_a, input_b), needs)
        if _source.enabled:
            node._where = here()  # for the second-backward error (kael.autograd.set_detect_source)
        if saves is not None:
            first, second = saves(a if a is not None else _wrap(da), b if b is not None else _wrap(db), needs)
            node._saved = [None if first is None else save(first, node),
                           None if second is None else save(second, node)]
        out = _wrap(binary(op, da, db))
        out._meta = AutogradMeta(True, node)
        return out

    return record


def _fused_binary(cls, op, refused=None, full=None):
    """``op(a, b)``: one fused path for the usual operands (two tensors of one dtype, or a
    tensor and a Python number that does not widen it), everything else through ``operands``
    and ``cls.apply`` (or ``full``). ``refused``: a dtype the fused path leaves to the full one.
    A recorded node, its saved tensors and its errors are those of ``cls.apply``."""
    floating_only = op == "div"  # an integer division promotes to the default float dtype
    record = _recorder(cls, op)
    plain = AutogradMeta
    state = _grad_state
    binary = B.binary

    def fn(a, b):
        ta, tb = type(a), type(b)
        if ta is Tensor:
            da = a._data
            dtype = B.dtype(da)
            if tb is Tensor:
                db = b._data
                if B.dtype(db) is not dtype:
                    return _full(a, b)
            elif (tb is float or tb is int) and dtype.category >= _CATEGORY[tb]:
                db = B.full((), b, dtype)
                b = None
            else:
                return _full(a, b)
        elif tb is Tensor and (ta is float or ta is int):
            db = b._data
            dtype = B.dtype(db)
            if dtype.category < _CATEGORY[ta]:
                return _full(a, b)
            da = B.full((), a, dtype)
            a = None
        else:
            return _full(a, b)
        if dtype is refused or floating_only and not dtype.is_floating_point:
            return _full(a if a is not None else _wrap(da), b if b is not None else _wrap(db))
        if state.enabled:
            ma = a._meta if a is not None else None
            mb = b._meta if b is not None else None
            if ma is not None and (type(ma) is not plain or ma.requires_grad) or (
                mb is not None and (type(mb) is not plain or mb.requires_grad)
            ):
                if type(ma) is plain or ma is None:
                    if (type(mb) is plain or mb is None) and dtype.is_floating_point and not _saved_hooks.stack:
                        return record(a, b, ma, mb, da, db, dtype)
                return cls.apply(a if a is not None else _wrap(da), b if b is not None else _wrap(db))
        return _wrap(binary(op, da, db))  # no history: the forward's result, nothing saved

    def _full(a, b):
        if full is not None:
            return full(a, b)
        (a, b), _ = operands(a, b)
        return cls.apply(a, b)

    fn.__name__ = op
    fn.__doc__ = cls.__doc__
    return fn


_CATEGORY = {int: dt.INT, float: dt.FLOAT}
# The input a Python number operand has in a recorded node (no edge, shape ()), one per dtype:
# NodeInputs are never changed, so nodes share them.
_SCALAR_INPUTS = {d: NodeInput(None, (), d) for d in (dt.bool_, dt.int64, dt.float32, dt.float64)}


def _binary(cls, op):
    def fn(a, b):
        (a, b), _ = operands(a, b)
        return cls.apply(a, b)

    fn.__name__ = op
    fn.__doc__ = cls.__doc__
    return fn


add = _fused_binary(Add, "add")


def _sub_full(a, b):
    """a - b; refused for bool tensors and Python bools, as in PyTorch."""
    bools = [v is True or v is False or isinstance(v, Tensor) and v.dtype is dt.bool_ for v in (a, b)]
    (a, b), _ = operands(a, b)
    if any(bools):
        if all(bools):
            raise RuntimeError(
                "Subtraction, the `-` operator, with two bool tensors is not supported. "
                "Use the `^` or `logical_xor()` operator instead."
            )
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead."
        )
    return Sub.apply(a, b)


sub = _fused_binary(Sub, "sub", refused=dt.bool_, full=_sub_full)
mul = _fused_binary(Mul, "mul")
div = _fused_binary(Div, "div")
true_divide = div


def pow(a, b):
    """a ** b for tensors and numbers."""
    scalar_exponent, exponent = not isinstance(b, Tensor), b
    (a, b), dtype = operands(a, b)
    if dtype is dt.bool_:
        if scalar_exponent and type(exponent) is bool:  # PyTorch: x ** True is x, x ** False is 1
            return a.clone() if exponent else _wrap(B.full(B.shape(a._data), True, dt.bool_))
        broadcast_shapes(a.shape, b.shape)
        raise not_implemented("pow", dtype)
    if dtype is dt.int64 and b.numel() and B.item(B.amin(b._data, tuple(range(b.ndim)), False)) < 0:
        if scalar_exponent:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return _wrap(_int_pow_negative(promoted(a, dtype), promoted(b, dtype)))
    return Pow.apply(a, b)


def _int_pow_negative(a, b):
    """Integer ``a ** b`` where some ``b < 0``: PyTorch's integer rule (1 and -1 stay units,
    every other base gives 0)."""
    zero, one = B.full((), 0, dt.int64), B.full((), 1, dt.int64)
    negative = B.binary("lt", b, zero)
    positive_part = B.binary("pow", a, B.where(negative, zero, b))
    odd = B.binary("ne", B.binary("remainder", b, B.full((), 2, dt.int64)), zero)
    minus_one = B.where(odd, B.full((), -1, dt.int64), one)
    unit = B.where(B.binary("eq", a, one), one, B.where(B.binary("eq", a, B.full((), -1, dt.int64)), minus_one, zero))
    return B.where(negative, unit, positive_part)


# -- negation, clamping and selection ----------------------------------------------------------


class Neg(Function):
    """y = -a;  da = -g"""

    @staticmethod
    def forward(ctx, a):
        return _wrap(B.unary("neg", a._data))

    @staticmethod
    def backward(ctx, g):
        return -g


class Clamp(Function):
    """y = min(max(a, lo), hi);  da = g where lo <= a <= hi, else 0"""

    saved_names = ("self",)

    @staticmethod
    def forward(ctx, a, lo=None, hi=None):
        ctx.save_for_backward(a)
        ctx.lo, ctx.hi = lo, hi
        return _wrap(B.clip(a._data, lo, hi))

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        keep = None
        if ctx.lo is not None:
            keep = a >= ctx.lo
        if ctx.hi is not None:
            upper = a <= ctx.hi
            keep = upper if keep is None else keep & upper
        return (g if keep is None else where(keep, g, 0.0)), None, None


class Maximum(Function):
    """y = max(a, b);  da = g unless a < b (half where equal);  db = g unless b < a (half where
    equal). PyTorch's rule: against a nan, both sides get the whole g."""

    saved_names = ("self", "other")
    op = "maximum"

    @staticmethod
    def loses(a, b):
        return a < b

    @classmethod
    def forward(cls, ctx, a, b):
        ctx.save_for_backward(a, b)
        return _binary_forward(cls.op, a, b)

    @classmethod
    def backward(cls, ctx, g):
        a, b = ctx.saved_tensors
        need = ctx.needs_input_grad
        shared = where(a == b, g * 0.5, g)
        # masked, not multiplied: the losing side gets 0 even where g is nan or inf (PyTorch's masked_fill)
        ga = where(cls.loses(a, b), 0.0, shared) if need[0] else None
        gb = where(cls.loses(b, a), 0.0, shared) if need[1] else None
        return _grads(ctx, ga, gb)


class Minimum(Maximum):
    """y = min(a, b);  da = g unless a > b (half where equal);  db = g unless b > a (half where
    equal)"""

    op = "minimum"

    @staticmethod
    def loses(a, b):
        return a > b


class Where(Function):
    """y = cond ? a : b;  da = g where cond;  db = g where not cond"""

    saved_names = ("condition",)

    @staticmethod
    def forward(ctx, cond, a, b):
        ctx.save_for_backward(cond)
        dtype = a.dtype if a.dtype is b.dtype else _common_dtype(a, b, a.dtype, b.dtype)
        return _wrap(B.where(cond._data, promoted(a, dtype), promoted(b, dtype)))

    @staticmethod
    def backward(ctx, g):
        (cond,) = ctx.saved_tensors
        _, na, nb = ctx.inputs
        need = ctx.needs_input_grad
        zero = g.new_zeros(())
        ga = reduce_grad(where(cond, g, zero), na) if need[1] else None
        gb = reduce_grad(where(cond, zero, g), nb) if need[2] else None
        return None, ga, gb


class Cast(Function):
    """y = a.to(dtype);  da = g.to(a.dtype)"""

    @staticmethod
    def forward(ctx, a, dtype=None):
        return _wrap(B.cast(a._data, dtype))

    @staticmethod
    def backward(ctx, g):
        return g.to(ctx.inputs[0].dtype)


def neg(a):
    """-a"""
    if not isinstance(a, Tensor):
        raise TypeError(f"neg(): argument 'input' must be Tensor, not {type(a).__name__}")
    if a.dtype is dt.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead."
        )
    return Neg.apply(a)


def clamp(a, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_by_tensors(a, min, max)
    if not a.dtype.is_floating_point and (isinstance(min, float) or isinstance(max, float)):
        a = a.to(dt.get_default_dtype())  # PyTorch promotion: int.clamp(2.5) is float
    return Clamp.apply(a, min, max)


clip = clamp


def _clamp_by_tensors(a, lo, hi):
    """clamp with tensor bounds, broadcast elementwise; the gradient goes to ``a`` where
    lo <= a <= hi and to the bound ``a`` passes (PyTorch's ClampBackward), as two wheres give."""
    if lo is not None:
        a = where(a < lo, lo, a)
    if hi is not None:
        a = where(a > hi, hi, a)
    return a


def maximum(a, b):
    (a, b), _ = operands(a, b)
    return Maximum.apply(a, b)


def minimum(a, b):
    (a, b), _ = operands(a, b)
    return Minimum.apply(a, b)


def where(condition, a, b):
    """Elementwise select: ``a`` where ``condition`` is true, else ``b``."""
    if not isinstance(condition, Tensor):
        raise TypeError("where(): condition must be a Tensor")
    if condition.dtype is not dt.bool_:
        condition = condition.to(dt.bool_)
    (a, b), _ = operands(a, b)
    return Where.apply(condition, a, b)


def cast(a, dtype):
    if a.dtype is dtype:
        return a
    if not dtype.is_floating_point:  # no gradient flows into an integer or bool result
        return _wrap(B.cast(a._data, dtype))
    return Cast.apply(a, dtype=dtype)


# -- functions without gradients ---------------------------------------------------------------


def logical_not(a):
    return _wrap(B.unary("logical_not", a._data))


def _compare(op):
    def fn(a, b):
        (a, b), dtype = operands(a, b)
        return _wrap(B.binary(op, promoted(a, dtype), promoted(b, dtype)))

    fn.__name__ = op
    return fn


eq = _compare("eq")
ne = _compare("ne")
lt = _compare("lt")
le = _compare("le")
gt = _compare("gt")
ge = _compare("ge")
logical_and = _compare("logical_and")
logical_or = _compare("logical_or")
logical_xor = _compare("logical_xor")


def _bitwise(op):
    def fn(a, b):
        """Bitwise on int64 (two's complement), logical on bool; PyTorch has no float kernel."""
        (a, b), dtype = operands(a, b)
        if dtype.is_floating_point:
            _check_no_grad_views(a, b)
            raise not_implemented(f"{op}_cpu", dtype)
        return _wrap(B.binary(op, promoted(a, dtype), promoted(b, dtype)))

    fn.__name__ = op
    return fn


def _check_no_grad_views(*tensors):
    """PyTorch reads its operands' ``grad_fn`` before it looks for a kernel (torchdiff seed
    888002377): with grad mode on, a view made under ``no_grad`` whose memory was written since
    raises its error before the dtype's ``not implemented``."""
    if _grad_state.enabled:
        for t in tensors:
            if type(t._meta) is NoGradViewMeta:
                t._meta.grad_fn  # raises for such a view


bitwise_and = _bitwise("bitwise_and")
bitwise_or = _bitwise("bitwise_or")
bitwise_xor = _bitwise("bitwise_xor")


def bitwise_not(a):
    """~a: two's complement on int64, logical not on bool."""
    if a.dtype.is_floating_point:
        raise not_implemented("bitwise_not_cpu", a.dtype)
    return _wrap(B.unary("bitwise_not", a._data))


class FloorDivide(Function):
    """y = floor(a / b). PyTorch records the node (the result requires grad) but has no
    derivative for it: backward through it raises, as PyTorch's does."""

    @staticmethod
    def forward(ctx, a, b):
        return _integer_safe_forward("floordiv", a, b)

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::floor_divide is not implemented")


class Remainder(Function):
    """y = a - floor(a / b) * b;  da = g;  db = -g * floor(a / b)"""

    saved_names = ("self", "other")

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a if ctx.needs_input_grad[1] else None, b if ctx.needs_input_grad[1] else None)
        return _integer_safe_forward("remainder", a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        gb = -g * floor_divide(a, b) if ctx.needs_input_grad[1] else None
        return _grads(ctx, g, gb)


def _integer_safe_forward(op, a, b):
    """floordiv/remainder; an integer division by zero raises as PyTorch's does."""
    (a, b), dtype = operands(a, b)
    if dtype is dt.bool_:
        broadcast_shapes(a.shape, b.shape)  # PyTorch checks the shapes before the kernel's dtype
        raise not_implemented("div_floor_cpu" if op == "floordiv" else "remainder_cpu", dtype)
    db = promoted(b, dtype)
    if not dtype.is_floating_point and B.shape(a._data) != (0,) and 0 not in B.shape(a._data) and B.item(B.sum(B.binary("eq", db, B.full((), 0, dtype)), tuple(range(len(B.shape(db)))), False)):
        raise RuntimeError("ZeroDivisionError")
    return _wrap(B.binary(op, promoted(a, dtype), db))


class RemainderOfNumber(Remainder):
    """y = number % b. PyTorch has no derivative for ``remainder(Scalar, Tensor)``: it records
    the node and backward through it raises, as here."""

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("derivative for aten::remainder is not implemented")


floor_divide = _binary(FloorDivide, "floor_divide")
_remainder = _binary(Remainder, "remainder")
_remainder_of_number = _binary(RemainderOfNumber, "remainder")


def remainder(a, b):
    """a % b, with the sign of b (PyTorch's and Python's convention)."""
    if isinstance(a, (bool, int, float)) and isinstance(b, Tensor):
        return _remainder_of_number(a, b)
    return _remainder(a, b)


# Tensor methods and operators of these ops (kael/ops/_register.py)
operator(add, "__add__", "__radd__", "add")
operator(sub, "__sub__", "__rsub__", "sub")
operator(mul, "__mul__", "__rmul__", "mul")
operator(div, "__truediv__", "__rtruediv__", "div", "true_divide")
operator(floor_divide, "__floordiv__", "__rfloordiv__")
operator(remainder, "__mod__", "__rmod__")
operator(pow, "__pow__", "__rpow__")
method(pow, params="exponent", call="_op(self, exponent)")
operator(bitwise_and, "__and__", "__rand__")
operator(bitwise_or, "__or__", "__ror__")
operator(bitwise_xor, "__xor__", "__rxor__")
operator(lt, "__lt__", None, "lt")
operator(le, "__le__", None, "le")
operator(gt, "__gt__", None, "gt")
operator(ge, "__ge__", None, "ge")
method(ne, "isnan", params="", call="_op(self, self)")
method(neg, "__neg__", "neg")
method(clamp, "clamp", "clip")
method(maximum, params="other", call="_op(self, other)")
method(minimum, params="other", call="_op(self, other)")
method(where, params="condition, other", call="_op(condition, self, other)")
method(logical_not)
method(logical_and, params="other", call="_op(self, other)")
method(logical_or, params="other", call="_op(self, other)")
method(logical_xor, params="other", call="_op(self, other)")
method(floor_divide, params="other", call="_op(self, other)")
method(remainder, params="other", call="_op(self, other)")
method(bitwise_and, params="other", call="_op(self, other)")
method(bitwise_or, params="other", call="_op(self, other)")
method(bitwise_xor, params="other", call="_op(self, other)")
method(bitwise_not)
