"""Mutant: saves a copy (detach().clone()): its version never moves, so in-place changes to the
original go unnoticed (and the copy costs memory)."""

import kael

MESSAGE = ("one of the variables needed for gradient computation has been modified by an "
           "inplace operation: expected version {expected}, got {got}")


class SavedTensor:
    def __init__(self, tensor):
        self._data = tensor.detach().clone()
        self._version = self._data._version

    @property
    def version(self):
        return self._version

    def unpack(self):
        current = self._data._version
        if current != self._version:
            raise RuntimeError(MESSAGE.format(expected=self._version, got=current))
        return self._data


class Cube(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.saved_x = SavedTensor(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        x = ctx.saved_x.unpack()
        return 3 * x * x * g
