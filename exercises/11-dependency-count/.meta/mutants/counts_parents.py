"""Mutant: counts distinct parent nodes instead of edges: x * x gives 1, not 2."""

import kael


def count_dependencies(root):
    deps = {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for edge in {ni.edge for ni in node.inputs}:
            if edge is None:
                continue
            if edge not in deps:
                deps[edge] = 0
                stack.append(edge)
            deps[edge] += 1
    return deps


def topological_order(root):
    deps = count_dependencies(root)
    order = []
    ready = [root]
    while ready:
        node = ready.pop()
        order.append(node)
        for edge in {ni.edge for ni in node.inputs}:
            if edge is None:
                continue
            deps[edge] -= 1
            if deps[edge] == 0:
                ready.append(edge)
    return order
