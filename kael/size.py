"""``Size``: a tensor's shape (its own module, so that ``kael.autograd.saved`` can make one
without importing ``kael.tensor``)."""

from __future__ import annotations

import math

__all__ = ["Size"]


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``kael.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"kael.Size({list(self)})"

    def numel(self) -> int:
        return math.prod(self)
