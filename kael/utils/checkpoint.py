"""Activation checkpointing: save a segment's inputs only, recompute the segment in backward.

``checkpoint(fn, *args, **kwargs)`` works as PyTorch's non-reentrant checkpoint: ``fn`` runs
with grad mode as it is, so its graph is recorded as usual and reaches every tensor that
requires grad (arguments, parameters ``fn`` closes over or a module holds), but what its nodes
save is not kept: each save leaves a small holder instead. The segment's tensor arguments are
saved once, as any node saves (through the saved-tensor hooks: the notebook counts 3 tensors
instead of 5). The first time backward unpacks a holder, the segment runs again from those
inputs with the same random state, and the recomputed tensors fill the holders. One extra
forward pass is traded for the segment's intermediate activations.
"""

from __future__ import annotations

import sys
import types
import weakref

from .. import random as _random
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.node import FunctionNode
from ..autograd.saved import _hooks, saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["checkpoint", "CheckpointError"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the forward saved (PyTorch's ``CheckpointError``)."""


class CheckpointInputs(FunctionNode):
    """Holds a segment's tensor inputs until the recomputation needs them; not in the graph."""

    __slots__ = ()


class _Holder:
    """What a save inside the segment keeps instead of the tensor: its place and metadata."""

    __slots__ = ("index", "shape", "dtype", "__weakref__")

    def __init__(self, index, tensor):
        self.index, self.shape, self.dtype = index, tensor.shape, tensor.dtype


class Checkpoint:
    """One checkpointed call: ``forward`` runs the segment keeping holders in place of its saves,
    ``backward`` recomputes it to fill them (run the first time backward unpacks one)."""

    def __init__(self, fn, args, kwargs, preserve_rng_state=True):
        self.fn, self.kwargs = fn, kwargs
        self.args = [None if isinstance(a, Tensor) else a for a in args]  # tensors: in self.inputs
        self.is_tensor = [isinstance(a, Tensor) for a in args]
        tensors = [a for a in args if isinstance(a, Tensor)]
        self.requires = [t.requires_grad for t in tensors]
        self.inputs = CheckpointInputs((), ())
        if is_grad_enabled():
            self.inputs.save_for_backward(*tensors)
        self.rng = _random.get_rng_state() if preserve_rng_state else None
        self.holders = []  # weak references, in the order the forward saved
        self.recomputed = {}  # holder index -> (packed, unpack) or (tensor, None)

    @staticmethod
    def forward(frame, fn, args, kwargs):
        with saved_tensors_hooks(frame.pack, frame.unpack):
            return fn(*args, **kwargs)

    def pack(self, tensor):
        holder = _Holder(len(self.holders), tensor)
        self.holders.append(weakref.ref(holder))
        return holder

    def unpack(self, holder):
        if holder.index not in self.recomputed:
            Checkpoint.backward(self)
        if holder.index not in self.recomputed:
            raise CheckpointError(
                "torch.utils.checkpoint: the recomputation saved fewer tensors than the forward "
                f"did (tensor {holder.index} was not saved again): the checkpointed function "
                "must run the same operations when it is run again"
            )
        value, unpack = self.recomputed.pop(holder.index)
        return value if unpack is None else unpack(value)

    @staticmethod
    def backward(frame):
        inputs = iter(t.detach().requires_grad_(r) for t, r in zip(frame.inputs.saved_tensors, frame.requires))
        args = [next(inputs) if is_tensor else a for is_tensor, a in zip(frame.is_tensor, frame.args)]
        outer = _hooks.stack[-1] if _hooks.stack else None
        recompute = _Recompute(frame, outer)
        state = _random.get_rng_state()
        if frame.rng is not None:
            _random.set_rng_state(frame.rng)
        try:
            with enable_grad(), saved_tensors_hooks(recompute.pack, _never_unpacked):
                frame.fn(*args, **frame.kwargs)
        finally:
            _random.set_rng_state(state)


class _Recompute:
    """The pack hook of one recomputation: the i-th save fills holder i, if it is still alive
    (an outer saved-tensor hook, such as kael.viz.memory's, sees the recomputed saves too)."""

    def __init__(self, frame, outer):
        self.frame, self.outer, self.count = frame, outer, 0

    def pack(self, tensor):
        frame, i = self.frame, self.count
        self.count += 1
        holder = frame.holders[i]() if i < len(frame.holders) else None
        if holder is None or i in frame.recomputed:
            return None
        if tuple(tensor.shape) != tuple(holder.shape) or tensor.dtype is not holder.dtype:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have different "
                f"metadata than during the forward pass.\ntensor at position {i}:\n"
                f"saved metadata: {{'shape': {holder.shape}, 'dtype': {holder.dtype}}}\n"
                f"recomputed metadata: {{'shape': {tensor.shape}, 'dtype': {tensor.dtype}}}"
            )
        tensor = tensor.detach()
        frame.recomputed[i] = (tensor, None) if self.outer is None else (self.outer[0](tensor), self.outer[1])
        return None


def _never_unpacked(_):
    raise CheckpointError("torch.utils.checkpoint: a recomputed segment's own graph is never run backward")


def checkpoint(fn, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """Run ``fn(*args, **kwargs)`` keeping only its tensor inputs; recompute it during backward.
    kael has one checkpoint, PyTorch's non-reentrant one, whatever ``use_reentrant`` says (README:
    deviations)."""
    frame = Checkpoint(fn, args, kwargs, preserve_rng_state)
    return Checkpoint.forward(frame, fn, args, kwargs)


class _CallableModule(types.ModuleType):
    """``kael.utils.checkpoint`` is this module, as ``torch.utils.checkpoint`` is (so
    ``kael.utils.checkpoint.checkpoint`` works), and calling it calls ``checkpoint``."""

    def __call__(self, *args, **kwargs):
        return checkpoint(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
