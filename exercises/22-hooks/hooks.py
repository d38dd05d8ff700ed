"""Watching and steering a backward pass: tensor hooks, node hooks, retain_grad, and what a
backward frees.

    handle = t.register_hook(fn)           fn(grad) -> None | new grad; runs when t's gradient is complete
    handle = node.register_prehook(fn)     fn(grads) -> None | grads; grads is a 1-tuple; runs before the node
    handle.remove()                        the hook never runs again
    t.retain_grad()                        keep a non-leaf's gradient in t.grad
    loss.backward(retain_graph=True)       keep the saved tensors for another backward
    node.inputs[i].edge, node.name(), node.released
"""

import kael


def record_gradients(named, loss):
    """Run ``loss.backward()`` with a hook on each tensor of ``named`` (``{name: tensor}``,
    leaves or not) that records the gradient reaching it; return ``{name: gradient as a list}``.
    The hooks must not change any gradient and must be removed before returning."""
    raise NotImplementedError("implement record_gradients: register, backward, remove")


def clip_gradient(t, max_norm):
    """Register a hook on ``t`` that rescales the gradient flowing through ``t`` to Euclidean
    norm ``max_norm`` when its norm is larger (smaller gradients pass unchanged). Return the
    handle."""
    raise NotImplementedError("implement clip_gradient: a hook that returns the rescaled gradient")


def execution_order(loss):
    """The names of the nodes in the order the engine **runs** them during ``loss.backward()``
    (a pre-hook on every node reachable from ``loss.grad_fn``, removed afterwards)."""
    raise NotImplementedError("implement execution_order: a pre-hook on every reachable node")


def backward_twice(x):
    """For y = (x.exp() * x).sum(), call y.backward() twice so that x.grad accumulates both;
    the saved tensors must be freed after the second one. Return
    ``[x.grad after the first, x.grad after the second, y.grad_fn.released]``."""
    raise NotImplementedError("implement backward_twice: keep the graph for the second backward only")


def hidden_gradient(x, w):
    """For h = (x @ w).relu() and loss = (h * h).sum(): the gradient of the loss with respect to
    the non-leaf h, and x.grad, after one backward: ``[h's gradient, x.grad]`` as lists."""
    raise NotImplementedError("implement hidden_gradient: retain h's gradient")
