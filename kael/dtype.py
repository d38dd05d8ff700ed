"""dtypes and PyTorch's type-promotion rules.

Four dtypes: ``bool`` < ``int64`` < ``float32``/``float64`` by category. Promotion follows
PyTorch: within a category the wider dtype wins; across categories the higher category wins;
a Python scalar (or a zero-dim tensor) only takes part when its category is higher than every
dimensioned operand's, so ``float32_tensor * 2.0`` stays float32 and ``int_tensor * 2.5``
becomes the default float dtype.
"""

from __future__ import annotations

__all__ = [
    "DType",
    "float32",
    "float64",
    "int64",
    "bool_",
    "get_default_dtype",
    "set_default_dtype",
    "promote_types",
    "result_type",
    "scalar_dtype",
    "as_dtype",
]

BOOL, INT, FLOAT = 0, 1, 2


class DType:
    """A tensor element type: ``kael.float32``, ``kael.float64``, ``kael.int64``, ``kael.bool``."""

    __slots__ = ("name", "itemsize", "category", "rank", "is_floating_point")

    def __init__(self, name: str, itemsize: int, category: int, rank: int):
        self.name = name
        self.itemsize = itemsize
        self.category = category
        self.rank = rank
        self.is_floating_point = category == FLOAT

    def __repr__(self) -> str:
        return f"kael.{self.name}"

    def __reduce__(self):
        return (as_dtype, (self.name,))


bool_ = DType("bool", 1, BOOL, 0)
int64 = DType("int64", 8, INT, 1)
float32 = DType("float32", 4, FLOAT, 2)
float64 = DType("float64", 8, FLOAT, 3)

_BY_NAME = {d.name: d for d in (bool_, int64, float32, float64)}
_BY_NAME.update({"float": float32, "double": float64, "long": int64})

_default_float = float32


def as_dtype(value) -> DType:
    """Accept a DType, its name, Python's ``float``/``int``/``bool``, or a numpy dtype."""
    if isinstance(value, DType):
        return value
    if value is float:  # Python's float is a double, as in PyTorch (dtype=float is float64)
        return float64
    if value is int:
        return int64
    if value is bool:
        return bool_
    name = getattr(value, "name", value)
    if isinstance(name, str) and name in _BY_NAME:
        return _BY_NAME[name]
    raise TypeError(f"unsupported dtype {value!r}; use kael.float32, float64, int64 or bool")


def get_default_dtype() -> DType:
    return _default_float


def set_default_dtype(dtype) -> None:
    """Set the dtype of floating-point tensors made without an explicit dtype."""
    global _default_float
    d = as_dtype(dtype)
    if not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d.name}")
    _default_float = d


def promote_types(a: DType, b: DType) -> DType:
    return a if a.rank >= b.rank else b


def scalar_dtype(value) -> DType:
    """The dtype a Python scalar would have on its own."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _default_float
    raise TypeError(f"expected a number, got {type(value).__name__}")


def result_type(dims: list[DType], zero_dims: list[DType], scalars: list[DType]) -> DType:
    """PyTorch's three-tier promotion: dimensioned tensors, then zero-dim tensors, then scalars.

    A lower tier only matters when its category is higher than every higher tier's. A
    higher-category scalar gives the default dtype of its category (the default float dtype for
    floats), not its own width.
    """
    result = None
    for tier in (dims, zero_dims):
        if not tier:
            continue
        best = tier[0]
        for d in tier[1:]:
            best = promote_types(best, d)
        if result is None or best.category > result.category:
            result = best
        elif best.category == result.category and tier is dims:
            result = promote_types(result, best)
    for d in scalars:
        if result is None or d.category > result.category:
            if d.category == FLOAT:
                d = _default_float
            result = d if result is None else (d if d.category > result.category else result)
    if result is None:
        raise ValueError("result_type needs at least one operand")
    return result
