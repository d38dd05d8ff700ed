"""Mutant: depth is the level at which a breadth-first walk first reaches each node, so a node
reached by a short path and a long one gets the short one."""


def _children(node):
    return [nxt for nxt, _ in node.next_functions if nxt is not None]


def count_nodes(fn):
    seen = {fn}
    stack = [fn]
    while stack:
        for child in _children(stack.pop()):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return len(seen)


def depth(fn):
    level = {fn: 1}
    queue = [fn]
    for node in queue:
        for child in _children(node):
            if child not in level:
                level[child] = level[node] + 1
                queue.append(child)
    return max(level.values())
