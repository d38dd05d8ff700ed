"""Mutant: forgets that a node can be reached along two paths, so shared nodes (and leaves
used twice) are listed more than once."""

import kael


def _children(fn):
    return [nxt for nxt, _ in fn.next_functions if nxt is not None]


def walk(fn):
    lines = []
    stack = [(fn, 0)]
    while stack:
        node, depth = stack.pop()
        lines.append("  " * depth + node.name())
        for child in reversed(_children(node)):
            stack.append((child, depth + 1))
    return lines


def unique_nodes(fn):
    order = []
    stack = [fn]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(_children(node)))
    return order


def leaf_tensors(fn):
    return [n.variable for n in unique_nodes(fn) if isinstance(n, kael.autograd.AccumulateGrad)]
