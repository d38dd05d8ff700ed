"""Mutant: walks level by level with a queue (breadth first) instead of depth first."""

from collections import deque

import kael


def _children(fn):
    return [nxt for nxt, _ in fn.next_functions if nxt is not None]


def walk(fn):
    lines = []
    queue = deque([(fn, 0)])
    while queue:
        node, depth = queue.popleft()
        lines.append("  " * depth + node.name())
        for child in _children(node):
            queue.append((child, depth + 1))
    return lines


def unique_nodes(fn):
    order = []
    seen = {fn}
    queue = deque([fn])
    while queue:
        node = queue.popleft()
        order.append(node)
        for child in _children(node):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return order


def leaf_tensors(fn):
    return [n.variable for n in unique_nodes(fn) if isinstance(n, kael.autograd.AccumulateGrad)]
