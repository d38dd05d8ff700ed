"""ADR 0005's SavedTensor: a detached handle plus the storage version at save time.

Every in-place operation bumps the version counter of its storage (``t._version``), which every
view and ``detach()`` of the same memory shares.
"""

import kael

MESSAGE = ("one of the variables needed for gradient computation has been modified by an "
           "inplace operation: expected version {expected}, got {got}")


class SavedTensor:
    """Holds ``tensor.detach()`` and ``tensor._version`` from the moment it is saved."""

    def __init__(self, tensor):
        raise NotImplementedError("implement __init__: keep a detached handle and the current version")

    @property
    def version(self):
        """The version the tensor had when it was saved."""
        raise NotImplementedError("implement version")

    def unpack(self):
        """The saved tensor (detached: no grad_fn, requires_grad False); raise
        ``RuntimeError(MESSAGE.format(expected=..., got=...))`` if its memory was modified in
        place since it was saved."""
        raise NotImplementedError("implement unpack(): compare versions, then return the handle")


class Cube(kael.autograd.Function):
    """y = x ** 3;  dx = 3 * x**2 * g.  Save x as ``ctx.saved_x = SavedTensor(x)`` (your own
    SavedTensor, not ctx.save_for_backward) and unpack it in backward."""

    @staticmethod
    def forward(ctx, x):
        raise NotImplementedError("implement Cube.forward")

    @staticmethod
    def backward(ctx, g):
        raise NotImplementedError("implement Cube.backward")
