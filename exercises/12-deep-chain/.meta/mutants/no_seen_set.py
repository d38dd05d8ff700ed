"""Mutant: count_nodes has no seen set: a node reached along two paths is counted twice (and
a ladder of 12 diamonds: one visit per path, 4,096 of them)."""


def _children(node):
    return [nxt for nxt, _ in node.next_functions if nxt is not None]


def count_nodes(fn):
    count = 0
    stack = [fn]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(_children(node))
    return count
def depth(fn):
    longest = {}
    stack = [(fn, False)]
    while stack:
        node, expanded = stack.pop()
        if node in longest:
            continue
        children = _children(node)
        if expanded:
            longest[node] = 1 + max((longest[c] for c in children), default=0)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in children if c not in longest)
    return longest[fn]
