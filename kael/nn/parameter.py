"""``Parameter``: a leaf tensor that a ``Module`` registers as one of its parameters."""

from __future__ import annotations

from ..tensor import Tensor


class Parameter(Tensor):
    """A tensor that requires grad by default and is found by ``Module.parameters()``."""

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..creation import zeros

            data = zeros(0)
        if not isinstance(data, Tensor):
            from ..creation import tensor

            data = tensor(data)
        p = object.__new__(cls)
        p._data = data._data
        p._storage = data._storage
        p._meta = None
        if requires_grad:
            p.requires_grad_()
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce__(self):
        from ..creation import tensor

        return (Parameter, (tensor(self.tolist(), dtype=self.dtype), self.requires_grad))
