"""Mutant: counts with a recursive walk: fine on small graphs, RecursionError on a deep chain."""

import kael


def count_dependencies(root, deps=None):
    if deps is None:
        deps = {root: 0}
    for ni in root.inputs:
        edge = ni.edge
        if edge is None:
            continue
        first = edge not in deps
        deps[edge] = deps.get(edge, 0) + 1
        if first:
            count_dependencies(edge, deps)
    return deps


def topological_order(root):
    deps = count_dependencies(root)
    order = []
    ready = [root]
    while ready:
        node = ready.pop()
        order.append(node)
        for ni in node.inputs:
            edge = ni.edge
            if edge is None:
                continue
            deps[edge] -= 1
            if deps[edge] == 0:
                ready.append(edge)
    return order
