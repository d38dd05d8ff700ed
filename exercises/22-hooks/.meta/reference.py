"""Tensor hooks, node hooks, retain_grad and retain_graph (reference solution)."""

import kael


def record_gradients(named, loss):
    seen = {}
    handles = []
    for name, t in named.items():
        def hook(g, name=name):
            seen[name] = g.tolist()  # returns None: the gradient is unchanged
        handles.append(t.register_hook(hook))
    try:
        loss.backward()
    finally:
        for h in handles:
            h.remove()
    return seen


def clip_gradient(t, max_norm):
    def hook(g):
        norm = (g * g).sum().sqrt().item()
        if norm > max_norm:
            return g * (max_norm / norm)
        return None

    return t.register_hook(hook)


def _reachable(root):
    nodes, seen, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        nodes.append(node)
        stack.extend(ni.edge for ni in node.inputs)
    return nodes


def execution_order(loss):
    order = []
    handles = [n.register_prehook(lambda grads, n=n: order.append(n.name())) for n in _reachable(loss.grad_fn)]
    try:
        loss.backward()
    finally:
        for h in handles:
            h.remove()
    return order


def backward_twice(x):
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.tolist()
    y.backward()
    return [first, x.grad.tolist(), y.grad_fn.released]


def hidden_gradient(x, w):
    h = (x @ w).relu()
    h.retain_grad()
    (h * h).sum().backward()
    return [h.grad.tolist(), x.grad.tolist()]
