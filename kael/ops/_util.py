"""What every op family shares: operand promotion, dim normalization and ``sum_to``."""

from __future__ import annotations

from .. import dtype as dt
from ..backend.errors import fmt_shape
from ..dims import norm_dim, norm_dims
from ..creation import tensor
from ..tensor import B, Tensor, _wrap

__all__ = [
    "as_tensor", "operands", "promoted", "sum_to", "reduce_grad", "norm_dim", "norm_dims", "TORCH_NAMES",
    "not_implemented", "raw_binary", "raw_neg",
]

# PyTorch's names of the dtypes in its messages ("not implemented for 'Long'").
TORCH_NAMES = {dt.float32: "Float", dt.float64: "Double", dt.int64: "Long", dt.bool_: "Bool"}


def not_implemented(kernel: str, dtype) -> NotImplementedError:
    """PyTorch's error for a kernel that has no version for ``dtype``."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{TORCH_NAMES[dtype]}\'')


def as_tensor(value, dtype=None) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float)):
        return _wrap(B.full((), value, dtype or dt.scalar_dtype(value)))
    return tensor(value, dtype=dtype)


def operands(*values):
    """Tensors for ``values`` (Python scalars become 0-d tensors) and their result dtype.

    PyTorch promotion: a Python scalar or a 0-d tensor does not widen a dimensioned tensor of
    the same category (``float32_tensor * 2.0`` stays float32)."""
    if len(values) == 2:
        a, b = values
        ta, tb = type(a), type(b)
        # Fast paths: two tensors of one dtype, or a tensor and a scalar that does not widen it.
        if ta is Tensor and tb is Tensor:
            da = B.dtype(a._data)
            if da is B.dtype(b._data):
                return values, da
        elif ta is Tensor and (tb is float or tb is int):
            da = B.dtype(a._data)
            if da.category >= _CATEGORY[tb]:
                return (a, _wrap(B.full((), b, da))), da
        elif tb is Tensor and (ta is float or ta is int):
            db = B.dtype(b._data)
            if db.category >= _CATEGORY[ta]:
                return (_wrap(B.full((), a, db)), b), db
    dims, zero_dims, scalars = [], [], []
    for v in values:
        if isinstance(v, Tensor):
            (dims if B.shape(v._data) else zero_dims).append(v.dtype)
        elif isinstance(v, (bool, int, float)):
            scalars.append(dt.scalar_dtype(v))
        else:
            raise TypeError(f"unsupported operand type {type(v).__name__}; expected a Tensor or a number")
    result = dt.result_type(dims, zero_dims, scalars)
    tensors = tuple(v if isinstance(v, Tensor) else _wrap(B.full((), v, result)) for v in values)
    return tensors, result


_CATEGORY = {int: dt.INT, float: dt.FLOAT}


def promoted(t: Tensor, dtype):
    """``t``'s array cast to ``dtype`` when it differs, laid out as ``t`` is (PyTorch promotes
    inside its loop, so a permuted operand's result stays permuted: torchdiff seed 2472)."""
    arr = t._data
    return arr if B.dtype(arr) is dtype else B.cast(arr, dtype)


def sum_to(g: Tensor, shape) -> Tensor:
    """Undo a broadcast (rml's SumTo): sum away leading dims, then keep-dim-sum every dim that is
    1 in ``shape`` but not in ``g``."""
    gshape = g.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    if lead < 0:
        raise RuntimeError(f"sum_to: shape {fmt_shape(gshape)} cannot be reduced to {fmt_shape(shape)}")
    dims = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1
    )
    out = g.sum(dims, keepdim=True) if dims else g
    if lead:
        out = out.reshape(shape)
    return out


def reduce_grad(g: Tensor, ni) -> Tensor:
    """The gradient for input ``ni`` (a NodeInput): summed to its shape, cast to its dtype."""
    data = g._data
    if B.shape(data) != ni.shape:
        g = sum_to(g, ni.shape)
    if B.dtype(data) is not ni.dtype:
        g = g.to(ni.dtype)
    return g


def raw_binary(op: str, g: Tensor, t: Tensor) -> Tensor:
    """``g op t`` in a backward (grad mode is off there, nothing is recorded): the backend's
    result wrapped, without the operator's dispatch, when both are tensors of one dtype;
    otherwise the operator, which promotes (or raises its error)."""
    if isinstance(t, Tensor) and isinstance(g, Tensor):  # an unpack hook may give anything back
        gd, td = g._data, t._data
        if B.dtype(gd) is B.dtype(td):
            return _wrap(B.binary(op, gd, td))
    return _OPERATORS[op](g, t)


def raw_neg(g: Tensor) -> Tensor:
    """``-g`` in a backward, on the backend array."""
    return _wrap(B.unary("neg", g._data))


_OPERATORS = {
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
}
