"""Mutant: counts an edge only when it discovers its target (the count sits inside the
'not seen yet' branch), so every node gets 1 however many edges point to it."""

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
                deps[edge] = 1
                stack.append(edge)
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
