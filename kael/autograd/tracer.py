"""The tracer protocol of the backward engine, and the tracer of a pass nobody watches."""

from __future__ import annotations

__all__ = ["NoTracer", "NO_TRACER"]


class NoTracer:
    """The tracer of a pass nobody watches: every hook of the protocol is a no-op.

    The protocol, in the order the engine calls it (``kael.viz.Trace`` implements it):
    ``on_start(root_nodes, seeds, deps, roots, ready)``, then per popped node ``on_skip(node)``
    or ``on_node(node, grad)`` [``on_hooks(node, "pre", n, grad)``] [``on_capture(node,
    input_indices, grad)``] [``on_accumulate(node, leaf_grad)``] [``on_hooks(node, "post", n,
    grads)``], ``on_send(node, input_nr, target, grad, buffer_after, count_before, count_after,
    became_ready)`` per non-null edge, ``on_step_end(node, ready, released)``; ``on_error(node,
    exc)`` if the pass fails; ``on_end()`` always.
    """

    __slots__ = ()

    def on_start(self, root_nodes, seeds, deps, roots, ready):
        pass

    def on_node(self, node, grad):
        pass

    def on_skip(self, node):
        pass

    def on_hooks(self, node, kind, n, result):
        pass

    def on_capture(self, node, input_indices, grad):
        pass

    def on_accumulate(self, node, grad):
        pass

    def on_send(self, node, input_nr, target, grad, buffer_after, count_before, count_after, became_ready):
        pass

    def on_step_end(self, node, ready, released):
        pass

    def on_error(self, node, exc):
        pass

    def on_end(self):
        pass


NO_TRACER = NoTracer()
