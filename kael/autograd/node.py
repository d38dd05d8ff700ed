"""Nodes of the backward graph (ADR 0005: Node, NodeInput, FunctionNode, AccumulateGrad).

A node maps the gradient of its one output to one gradient per input. ``inputs[i]`` is a
``NodeInput``: the edge to the node that receives input ``i``'s gradient (``None`` for an input
that does not require grad), and the shape and dtype that gradient must have.

Ownership follows the ADR: a tensor owns its ``grad_fn``, a node owns the nodes of its inputs, a
leaf holds its ``AccumulateGrad`` only weakly. In CPython nodes have no ``__del__``: a chain of
them (nodes, tuples, ``NodeInput``s, saved tensors: all objects the collector tracks) is freed by
the interpreter's own deallocator, whose "trashcan" defers a deep chain's frees to a loop instead
of recursing, without a Python call per node. In Pyodide that deallocator overflows the
JavaScript stack on a 50,000-step chain, so there ``FunctionNode.__del__`` frees it iteratively
(``ITERATIVE_FREE``).
"""

from __future__ import annotations

import sys

from .hooks import PLAIN_HOOK, hook_phase, run_tensor_hooks
from .saved import save
from .source import describe

__all__ = ["Node", "NodeInput", "FunctionNode", "AccumulateGrad"]


class NodeInput:
    """One input of a node: its edge, and the shape and dtype its gradient must have."""

    __slots__ = ("edge", "shape", "dtype")

    def __init__(self, edge, shape, dtype):
        self.edge = edge
        self.shape = shape
        self.dtype = dtype

    def __repr__(self):
        edge = self.edge.name() if self.edge is not None else None
        return f"NodeInput(edge={edge}, shape={list(self.shape)}, dtype={self.dtype.name})"


# Pyodide's deallocator recurses on the JavaScript engine's stack, which its trashcan does not
# measure: there (only), nodes free their chains themselves (FunctionNode.__del__).
ITERATIVE_FREE = sys.platform == "emscripten"


def _calibrate_sole_reference() -> int:
    # sys.getrefcount of an object held only by one local variable, measured with the same code
    # shape as Node.__del__ uses (the number differs between CPython versions).
    obj = [object()]
    item = obj.pop()
    return sys.getrefcount(item)


_SOLE = _calibrate_sole_reference()


class Node:
    """Base class: ``apply(grad)`` returns one gradient (or ``None``) per input."""

    __slots__ = ("inputs", "_pre_hooks", "_hooks", "__weakref__")

    def __init__(self, inputs=()):
        self.inputs = inputs
        self._pre_hooks = None
        self._hooks = None

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        """``((node, input_nr), ...)`` as in PyTorch; ``(None, 0)`` for a null edge."""
        return tuple((ni.edge, 0) for ni in self.inputs)

    def apply(self, grad):
        raise NotImplementedError

    def register_prehook(self, fn):
        """``fn(grad_outputs) -> None | grad_outputs``: runs before the node; may replace the
        incoming gradient (a one-element tuple, as in PyTorch)."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(fn)
        if hook_phase(fn) < PLAIN_HOOK:  # in PyTorch's order: tensor hooks, retain_grad, node pre-hooks
            self._pre_hooks.sort(key=hook_phase)
        return _RemovableHandle(self._pre_hooks, fn)

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs) -> None | grad_inputs``: runs after the node."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return _RemovableHandle(self._hooks, fn)

    @property
    def released(self) -> bool:
        return False

    def __repr__(self):
        return f"<{self.name()} object at {id(self):#x}>"

class _RemovableHandle:
    __slots__ = ("_hooks", "_fn")

    def __init__(self, hooks, fn):
        self._hooks = hooks
        self._fn = fn

    def remove(self):
        try:
            self._hooks.remove(self._fn)
        except ValueError:
            pass


class FunctionNode(Node):
    """A recorded operation, named like ``MulBackward``.

    The node is also the ``ctx`` its function's ``forward`` and ``backward`` see:
    ``save_for_backward``, ``saved_tensors`` (version-checked), ``needs_input_grad`` and plain
    attributes for everything that is not a tensor.
    """

    __slots__ = ("_saved", "_released", "needs_input_grad", "_positions", "__dict__")

    function = None  # the Function class whose backward this node runs
    saved_names: tuple = ()  # names of the saved tensors, for ``_saved_<name>``
    _outputs = None  # a user's Function with a tuple result: outputs.Outputs (set per node)
    _materialize = True  # ctx.set_materialize_grads
    _dirty = None  # ctx.mark_dirty: the inputs its forward changed in place

    if ITERATIVE_FREE:

        def __del__(self):
            # Iterative destruction: take the edges out of every node whose last reference is on
            # this local stack, so that dropping it cannot recurse into its inputs.
            inputs = self.inputs
            if not inputs:
                return
            self.inputs = ()
            stack = [ni.edge for ni in inputs if ni.edge is not None]
            del inputs
            sole = _SOLE
            while stack:
                node = stack.pop()
                if sys.getrefcount(node) <= sole and node.inputs:
                    stack.extend(ni.edge for ni in node.inputs if ni.edge is not None)
                    node.inputs = ()
                del node

    def __init__(self, inputs, needs_input_grad, positions=None):
        self.inputs = inputs
        self._pre_hooks = None
        self._hooks = None
        self._saved = None
        self._released = False
        self.needs_input_grad = needs_input_grad
        # (number of forward arguments, forward-argument index of each input) when some
        # forward arguments are not tensors; None when inputs are arguments 0..n-1.
        self._positions = positions

    # -- ctx API ---------------------------------------------------------------------------------
    def save_for_backward(self, *tensors):
        self._saved = [None if t is None else save(t, self) for t in tensors]

    @property
    def saved_tensors(self) -> tuple:
        if self._released:
            raise RuntimeError(self._freed_message())
        if self._saved is None:
            return ()
        return tuple(None if s is None else s.unpack() for s in self._saved)

    def mark_non_differentiable(self, *tensors):
        pass  # outputs of kael Functions that are not floating point never record history

    def mark_dirty(self, *tensors):
        """The forward changed these inputs in place (and returns them)."""
        self._dirty = tensors

    def set_materialize_grads(self, value: bool):
        """False: an output no gradient reached gets ``None`` in backward, not zeros."""
        self._materialize = bool(value)

    # -- introspection ---------------------------------------------------------------------------
    def saved_tensor_records(self) -> list:
        """``[(name, SavedTensor)]`` for every tensor this node saved (not unpacked)."""
        if not self._saved:
            return []
        names = self.saved_names
        return [
            (names[i] if i < len(names) else str(i), s)
            for i, s in enumerate(self._saved)
            if s is not None
        ]

    def __getattr__(self, attr):
        if attr.startswith("_saved_"):
            wanted = attr[len("_saved_"):]
            names = type(self).saved_names
            if wanted in names:
                if self._released:
                    raise RuntimeError(self._freed_message())
                i = names.index(wanted)
                saved = self._saved[i] if self._saved and i < len(self._saved) else None
                return None if saved is None else saved.unpack()
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def __dir__(self):
        # The internal slot ``_saved`` stays out, so that the ``_saved*`` names listed are exactly
        # the saved tensors (the notebook's walk prints ['_saved_other', '_saved_self']).
        names = set(super().__dir__()) - {"_saved"}
        return sorted(names | {"_saved_" + n for n in type(self).saved_names})

    # -- running -----------------------------------------------------------------------------------
    @property
    def released(self) -> bool:
        return self._released

    def apply(self, grad):
        if self._released:
            raise RuntimeError(self._freed_message())
        layout = self._outputs
        if layout is None:
            grads = self.function.backward(self, grad)
        else:
            grads = self.function.backward(self, *layout.grads(grad, self._materialize))
        if not isinstance(grads, tuple):
            grads = (grads,)
        positions = self._positions
        if positions is None:
            expected = len(self.inputs)
        else:
            expected, positions = positions
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]  # PyTorch accepts extra None gradients
        if len(grads) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(grads)})"
            )
        if positions is not None:
            grads = tuple(grads[p] for p in positions)
        return grads

    def release_variables(self, where=None):
        """Drop the saved tensors; the node cannot run again (ADR: a graph is used once).
        ``where``: the backward call that released them, when source lines are recorded."""
        self._saved = None
        self._released = True
        if where is not None:
            self._released_at = where

    def _freed_message(self) -> str:
        message = (
            "Trying to backward through the graph a second time (or to read the saved tensors of "
            f"{self.name()} after they were freed: the first backward released them); "
            "specify retain_graph=true"
        )
        details = self.__dict__
        lines = []
        if "_where" in details:
            lines.append(f"recorded at {describe(details['_where'])}")
        if "_released_at" in details:
            lines.append(f"released by the backward at {describe(details['_released_at'])}")
        return message + (" (" + "; ".join(lines) + ")" if lines else "")


class AccumulateGrad(Node):
    """Sits at a leaf and adds the incoming gradient into the leaf's ``grad``.

    Runs the leaf's tensor hooks first (each may return a replacement gradient); the first
    gradient stored is cloned, since it may be shared with another branch (rml).
    """

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.inputs = ()  # Node.__init__, written out: a leaf's first use in every op builds one
        self._pre_hooks = None
        self._hooks = None
        self.variable = variable

    def run_hooks(self, grad):
        """The leaf's tensor hooks, in order; each may return a replacement gradient."""
        hooks = self.variable._meta.hooks
        return run_tensor_hooks(hooks, grad) if hooks else grad

    def apply(self, grad):
        meta = self.variable._meta
        if not meta.requires_grad:  # requires_grad_(False) or detach_() since the graph was built
            return ()
        grad = self.run_hooks(grad)
        if meta.grad is None:
            meta.grad = grad._copy()
        else:
            meta.grad = meta.grad + grad
        if _post_accumulate.hooks:
            _post_accumulate.run(self.variable)
        return ()


from . import post_accumulate as _post_accumulate  # noqa: E402  (it imports this module)
