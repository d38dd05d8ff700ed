"""Checks and flattening of nested Python sequences given to ``kael.tensor``."""

from __future__ import annotations


def nested_shape(data) -> tuple:
    """The shape of a nested list/tuple of scalars; ``ValueError`` when it is ragged."""
    shape = []
    level = data
    while isinstance(level, (list, tuple)):
        shape.append(len(level))
        if not level:
            break
        level = level[0]
    _check(data, tuple(shape), 0)
    return tuple(shape)


def _check(data, shape, dim):
    # Iterative walk: (node, dim) pairs on an explicit stack.
    stack = [(data, dim)]
    while stack:
        node, d = stack.pop()
        if d == len(shape):
            if isinstance(node, (list, tuple)):
                raise ValueError(f"expected a number at dim {d}, got a sequence of length {len(node)}")
            continue
        if not isinstance(node, (list, tuple)):
            raise ValueError(f"expected sequence of length {shape[d]} at dim {d} (got {type(node).__name__})")
        if len(node) != shape[d]:
            raise ValueError(f"expected sequence of length {shape[d]} at dim {d} (got {len(node)})")
        stack.extend((child, d + 1) for child in node)


def check_nested(data) -> None:
    nested_shape(data)


def flatten_nested(data, ndim: int) -> list:
    out = [data]
    for _ in range(ndim):
        out = [x for seq in out for x in seq]
    return out
