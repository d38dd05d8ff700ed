"""Mutant: seeds every root with ones_like(root), whatever its size, instead of raising for a
root with more than one element."""

import kael


def sum_to(g, shape):
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    out = g.sum(dims, keepdim=True) if dims else g
    return out.reshape(shape)


def _seed(root, gradient):
    if gradient is None:
        return kael.ones_like(root)
    return gradient


def _count(root_node):
    deps = {}
    seen = {root_node}
    stack = [root_node]
    while stack:
        node = stack.pop()
        for ni in node.inputs:
            if ni.edge is None:
                continue
            deps[ni.edge] = deps.get(ni.edge, 0) + 1
            if ni.edge not in seen:
                seen.add(ni.edge)
                stack.append(ni.edge)
    return deps


def _accumulate(leaf, g):
    if leaf.grad is None:
        leaf.grad = g.clone()
    else:
        leaf.grad = leaf.grad + g


def backward(root, gradient=None):
    gradient = _seed(root, gradient)
    root_node = root.grad_fn
    deps = _count(root_node)
    buffers = {root_node: gradient}
    ready = [root_node]
    with kael.no_grad():
        while ready:
            node = ready.pop()
            grad = buffers.pop(node, None)
            if isinstance(node, kael.autograd.AccumulateGrad):
                if grad is not None:
                    _accumulate(node.variable, grad)
                continue
            grads = node.apply(grad) if grad is not None else (None,) * len(node.inputs)
            for ni, g in zip(node.inputs, grads):
                if ni.edge is None:
                    continue
                if g is not None:
                    g = sum_to(g, ni.shape)
                    buffers[ni.edge] = buffers[ni.edge] + g if ni.edge in buffers else g
                deps[ni.edge] -= 1
                if deps[ni.edge] == 0:
                    ready.append(ni.edge)
