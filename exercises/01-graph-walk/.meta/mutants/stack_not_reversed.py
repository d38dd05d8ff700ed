"""Mutant: pushes children on the stack in next_functions order, so the last input is visited
first; and it does not skip None edges in walk (a constant operand crashes it)."""

import kael


def walk(fn):
    lines = []
    stack = [(fn, 0)]
    while stack:
        node, depth = stack.pop()
        lines.append("  " * depth + node.name())
        for child, _ in node.next_functions:
            stack.append((child, depth + 1))
    return lines


def unique_nodes(fn):
    order = []
    seen = set()
    stack = [fn]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
    return order


def leaf_tensors(fn):
    return [n.variable for n in unique_nodes(fn) if isinstance(n, kael.autograd.AccumulateGrad)]
