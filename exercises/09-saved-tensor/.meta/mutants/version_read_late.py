"""Mutant: reads the version when first unpacked instead of when saved, so a change made
between forward and backward is taken as the baseline."""

import kael

MESSAGE = ("one of the variables needed for gradient computation has been modified by an "
           "inplace operation: expected version {expected}, got {got}")


class SavedTensor:
    def __init__(self, tensor):
        self._data = tensor.detach()
        self._version = None

    @property
    def version(self):
        return self._data._version if self._version is None else self._version

    def unpack(self):
        current = self._data._version
        if self._version is None:
            self._version = current
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
