"""``Function``: an operation with a forward and a hand-written backward.

Every differentiable operation in kael is a ``Function``, built-in ones and users' alike:
``forward(ctx, *args)`` computes the result with grad mode off, ``backward(ctx, grad)`` returns
one gradient per forward argument (``None`` where there is none). ``apply`` records a single node
named ``<ClassName>Backward`` when grad mode is on, the output is floating point and some input
requires grad (ADR 0005: history is recorded only when needed). That node is the ``ctx`` both
methods see.
"""

from __future__ import annotations

import weakref

from ..backend import get_backend
from ..tensor import Tensor, _no_grad_view, _wrap
from .grad_mode import state as _grad_state
from .meta import AutogradMeta
from .node import AccumulateGrad, FunctionNode, NodeInput
from .outputs import record_outputs
from .source import here
from .source import state as _source

__all__ = ["Function", "FunctionCtx", "once_differentiable"]

_ref = weakref.ref

B = get_backend()

class FunctionCtx:
    """The ``ctx`` a forward sees when no history is recorded: saving is a no-op."""

    _dirty = None

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad

    def save_for_backward(self, *tensors):
        pass

    def mark_non_differentiable(self, *tensors):
        pass

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def set_materialize_grads(self, value):
        pass

    @property
    def saved_tensors(self):
        return ()


class Function:
    """Subclass with static ``forward(ctx, ...)`` and ``backward(ctx, *grads)``; call ``apply``."""

    _node_class = None
    saved_names: tuple = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # kael's own ops with a tuple result (values, indices) have one differentiable output
        # and a backward that takes its gradient alone; a user's takes one per output
        cls._builtin = cls.__module__.startswith("kael.")
        cls._node_class = type(
            cls.__name__ + "Backward",
            (FunctionNode,),
            {"__slots__": (), "function": cls, "saved_names": tuple(cls.saved_names),
             "__module__": cls.__module__, "__doc__": cls.__doc__},
        )

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("implement forward(ctx, *args) in your Function subclass")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("implement backward(ctx, *grads) in your Function subclass")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Override it to write ``forward(*args)`` without ``ctx`` (PyTorch's newer style)."""
        raise NotImplementedError

    @classmethod
    def apply(cls, *args, **kwargs):
        state = _grad_state
        enabled = state.enabled
        node = None
        if enabled:
            for a in args:
                if isinstance(a, Tensor):
                    meta = a._meta
                    if meta is not None and meta.requires_grad:
                        node = cls._make_node(args)
                        break
        ctx = node if node is not None else FunctionCtx(_NO_GRAD_NEEDED[len(args)] if len(args) < 8 else (False,) * len(args))

        state.enabled = False
        try:
            if cls.setup_context is Function.setup_context:
                out = cls.forward(ctx, *args, **kwargs)
            else:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
        finally:
            state.enabled = enabled

        if type(out) is Tensor and ctx._dirty is None:  # the usual case: one tensor
            for a in args:
                if out is a:
                    out = out._alias()
                    break
            if node is not None:
                if B.dtype(out._data).is_floating_point:
                    out._set_history(node)
            elif not enabled:
                storage = out._storage  # a view shares an input's storage; a fresh result does not
                for a in args:
                    if not cls._builtin or isinstance(a, Tensor) and a._storage is storage:
                        _no_grad_view(out)  # a view op's result under no_grad
                        break
            return out
        dirty = ctx._dirty
        if dirty:
            return _dirty_outputs(out, dirty, node)
        if isinstance(out, tuple):
            return _tuple_outputs(cls, out, args, node)
        out = _as_output(out, args, cls)
        if not isinstance(out, Tensor):
            return out
        if node is not None:
            if B.dtype(out._data).is_floating_point:
                out._set_history(node)
        elif not enabled:
            _no_grad_view(out)  # a view op's result under no_grad
        return out

    @classmethod
    def _make_node(cls, args):
        inputs = []
        needs = []
        positions = None
        i = 0
        for a in args:
            if isinstance(a, Tensor):
                meta = a._meta
                inputs.append(node_input(a, meta, B.dtype(a._data)))
                needs.append(meta is not None and meta.requires_grad)
                if positions is not None:
                    positions.append(i)
            else:
                needs.append(False)
                if positions is None:
                    positions = list(range(i))
            i += 1
        if positions is None:
            node = cls._node_class(tuple(inputs), tuple(needs))
        else:
            node = cls._node_class(tuple(inputs), tuple(needs), (len(args), tuple(positions)))
        if _source.enabled:
            node._where = here()  # for the second-backward error (kael.autograd.set_detect_source)
        return node


def node_input(t, meta, dtype) -> NodeInput:
    """The ``NodeInput`` of operand ``t`` (``meta`` is ``t._meta``, ``dtype`` its dtype): the edge
    its gradient takes (its ``grad_fn``, a leaf's ``AccumulateGrad``, or None when it does not
    require grad), and the shape and dtype that gradient must have."""
    data = t._data
    if meta is not None and meta.requires_grad:
        edge = meta.grad_fn
        if edge is None:
            if type(meta) is AutogradMeta:  # meta.get_accumulator(t) written out: once per leaf per op
                ref = meta.accumulator
                edge = ref() if ref is not None else None
                if edge is None:
                    edge = AccumulateGrad(t)
                    meta.accumulator = _ref(edge)
            else:
                edge = meta.get_accumulator(t)
        return NodeInput(edge, B.shape(data), dtype)
    return NodeInput(None, B.shape(data), dtype)


def unary_node(cls, a, dtype):
    """The node of ``cls`` with the one input ``a`` (of dtype ``dtype``), as ``apply`` makes it,
    for the fast recording paths (``record_unary``, ``kael.ops.unary._record_kernel``)."""
    node = cls._node_class((node_input(a, a._meta, dtype),), _NEEDED_ONE)
    if _source.enabled:
        node._where = here()  # for the second-backward error (kael.autograd.set_detect_source)
    return node


def record_unary(cls, a):
    """``cls.apply(a)`` for one of kael's own one-input ops when it records a node, the checks
    made by the caller: ``a`` a floating tensor that requires grad, with a plain meta, and no
    saved-tensor hooks. The node, its saved tensors and its errors are those of ``apply``."""
    node = unary_node(cls, a, B.dtype(a._data))
    state = _grad_state
    state.enabled = False  # forward runs with grad mode off, as in apply
    try:
        out = cls.forward(node, a)
    finally:
        state.enabled = True
    if out is a:
        out = out._alias()
    out._set_history(node)
    return out


_NEEDED_ONE = (True,)
_NO_GRAD_NEEDED = [(False,) * n for n in range(8)]


def _tuple_outputs(cls, out, args, node):
    """A forward's tuple: a user's Function records one output per element; kael's own ops with
    a tuple result (values, indices) have one differentiable output."""
    outs = tuple(_as_output(o, args, cls) for o in out)
    if node is not None and not cls._builtin:
        record_outputs(node, outs, Tensor)
    elif node is not None:
        floating = [o for o in outs if isinstance(o, Tensor) and o.dtype.is_floating_point]
        if len(floating) > 1:
            raise RuntimeError(
                f"{cls.__name__}.forward returned {len(floating)} floating-point tensors; "
                "a kael Function has one differentiable output"
            )
        if floating:
            floating[0]._set_history(node)
    return outs


def _as_output(out, args, cls):
    if isinstance(out, Tensor):
        for a in args:
            if out is a:
                return out._alias()
        return out
    if type(out) is B.array_type:
        raise TypeError(
            f"{cls.__name__}.forward returned a backend array: forward returns Tensors "
            "(wrap the array with kael.tensor._wrap)"
        )
    return out  # None, a number or any other Python value, as PyTorch passes it through


_LEAF_INPLACE = "a leaf Variable that requires grad has been used in an in-place operation."


def _dirty_outputs(out, dirty, node):
    """``ctx.mark_dirty``: the inputs the forward changed in place are returned as themselves,
    their version bumped; with history recorded, they now come from ``node``."""
    outs = out if isinstance(out, tuple) else (out,)
    for t in dirty:
        if node is not None and t.requires_grad and t.grad_fn is None:
            raise RuntimeError(_LEAF_INPLACE)
        t._storage.bump()
    if node is not None:
        record_outputs(node, outs, Tensor)
        if not isinstance(out, tuple):
            node._outputs = None
    return out


def once_differentiable(fn):
    """Accepted for PyTorch compatibility; kael's backward never records history anyway."""
    return fn
