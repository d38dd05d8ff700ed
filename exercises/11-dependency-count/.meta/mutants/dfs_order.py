"""Mutant: orders nodes by a depth-first walk (first visit) instead of by the counts: a shared
node can come before one of the nodes that feed it."""

import kael


def count_dependencies(root):
    deps = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for ni in node.inputs:
            edge = ni.edge
            if edge is None:
                continue
            if edge not in deps:
                deps[edge] = 0
                stack.append(edge)
            deps[edge] += 1
    return deps


def topological_order(root):
    order = []
    seen = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(ni.edge for ni in node.inputs if ni.edge is not None)
    return order
