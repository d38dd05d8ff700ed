"""Running the hooks of a backward pass, with PyTorch's checks on what they return.

A hook may replace a gradient, but not change its size or dtype: the engine would otherwise
accumulate a gradient of the wrong shape into ``.grad`` or blame the node that receives it.
The error names the hook, as PyTorch's does (``hook 'clip' has changed the size of value``).
"""

from __future__ import annotations

__all__ = ["checked_replacement", "run_pre_hooks", "run_node_hooks", "run_tensor_hooks", "hook_phase",
           "TENSOR_HOOK", "RETAIN_GRAD", "PLAIN_HOOK"]

TENSOR_HOOK, RETAIN_GRAD, PLAIN_HOOK = 0, 1, 2


def hook_phase(fn) -> int:
    """Where a pre-hook runs among a node's pre-hooks: a tensor's ``register_hook`` first, then
    ``retain_grad`` (so ``.grad`` is the gradient after the tensor's hooks), then the node's own
    ``register_prehook``; a target's gradient is captured before the last (PyTorch's order)."""
    return getattr(fn, "hook_phase", PLAIN_HOOK)


def _hook_name(hook) -> str:
    fn = getattr(hook, "fn", hook)  # a tensor hook wrapped as a node pre-hook
    return getattr(fn, "__name__", type(fn).__name__)


def checked_replacement(hook, old, new):
    """``new`` if it may replace the gradient ``old`` (same size and dtype), else an error."""
    if new is None or old is None:
        return new
    if tuple(new.shape) != tuple(old.shape):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    if new.dtype is not old.dtype:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the type of value (was {old.dtype.name} got {new.dtype.name})"
        )
    return new


def run_tensor_hooks(hooks, grad):
    """A leaf's tensor hooks, in order: ``hook(grad) -> None | grad``."""
    for hook in hooks:
        replaced = hook(grad)
        if replaced is not None:
            grad = checked_replacement(hook, grad, replaced)
    return grad


def run_pre_hooks(node, grad, tensor_phase: bool):
    """``hook((grad,)) -> None | (grad,)`` before the node runs: the tensor's hooks and
    ``retain_grad`` (``tensor_phase``), or the node's own pre-hooks (see ``hook_phase``)."""
    for hook in node._pre_hooks:
        if (hook_phase(hook) < PLAIN_HOOK) is not tensor_phase:
            continue
        result = hook((grad,))
        if result is not None:
            grad = checked_replacement(hook, grad, result[0])
    return grad


def run_node_hooks(node, grads, grad):
    """``hook(grad_inputs, grad_outputs) -> None | grad_inputs`` after the node ran."""
    for hook in node._hooks:
        result = hook(grads, (grad,))
        if result is None:
            continue
        result = tuple(result)
        if len(result) != len(grads):
            raise RuntimeError(
                f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                f"(got {len(result)}, but expected {len(grads)})"
            )
        grads = tuple(checked_replacement(hook, old, new) for old, new in zip(grads, result))
    return grads
