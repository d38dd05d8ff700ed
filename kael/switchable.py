"""Stable names for the parts of kael an exercise may switch off (``.meta/config.json`` "rules").

An exercise asks the learner to write something kael already has (``sum_to``, ``Mul.backward``,
the engine); the judge switches kael's own version off so that it cannot be handed in. Exercises
name what they switch off by these ids, never by a module path: moving an op inside kael means
changing its line here, and ``tests/exercises/test_rules.py`` fails for an id that no longer
resolves to a Python function, so a rule cannot silently stop applying.

``TARGETS``: id -> ``"module:qualname"`` (``"module:*"``: every function defined in the module,
except the ids in an exercise's ``keep``).
"""

TARGETS = {
    # reductions of a broadcast gradient back to an input's shape
    "sum_to": "kael.ops._util:sum_to",
    # the ops' own backward formulas
    "Add.backward": "kael.ops.arithmetic:Add.backward",
    "Sub.backward": "kael.ops.arithmetic:Sub.backward",
    "Mul.backward": "kael.ops.arithmetic:Mul.backward",
    "Div.backward": "kael.ops.arithmetic:Div.backward",
    "Pow.backward": "kael.ops.arithmetic:Pow.backward",
    "Exp.backward": "kael.ops.unary:Exp.backward",
    "Log.backward": "kael.ops.unary:Log.backward",
    "Tanh.backward": "kael.ops.unary:Tanh.backward",
    "Sigmoid.backward": "kael.ops.unary:Sigmoid.backward",
    "Square.backward": "kael.ops.unary:Square.backward",
    "Relu.backward": "kael.ops.unary:Relu.backward",
    "Abs.backward": "kael.ops.unary:Abs.backward",
    "Matmul.backward": "kael.ops.matmul:Matmul.backward",
    "Linear.backward": "kael.ops.matmul:Linear.backward",
    "Index.backward": "kael.ops.indexing:Index.backward",
    "Permute.backward": "kael.ops.shape:Permute.backward",
    "Expand.backward": "kael.ops.shape:Expand.backward",
    "Amax.backward": "kael.ops.reduction:Amax.backward",
    "Max.backward": "kael.ops.reduction:Max.backward",
    # a composite op whose backward an exercise asks for (called directly, its static backward
    # would hand in kael's formula: red-team finding 5)
    "NativeLayerNorm.backward": "kael.ops.layer_norm:NativeLayerNorm.backward",
    # activation checkpointing
    "checkpoint": "kael.utils.checkpoint:checkpoint",
    "Checkpoint.forward": "kael.utils.checkpoint:Checkpoint.forward",
    "Checkpoint.backward": "kael.utils.checkpoint:Checkpoint.backward",
    # the backward engine: all of it, and what an exercise may keep of it
    "engine": "kael.autograd.engine:*",
    "engine.set_tracer": "kael.autograd.engine:set_tracer",
    "engine.format_shape": "kael.autograd.engine:_fmt",
}


def target(rule_id: str) -> str:
    """``"module:qualname"`` of ``rule_id``; ``KeyError`` names an unknown id."""
    try:
        return TARGETS[rule_id]
    except KeyError:
        raise KeyError(f"unknown switchable id {rule_id!r} (kael/switchable.py)") from None
