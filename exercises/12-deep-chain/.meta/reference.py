"""Walk a very deep backward graph with explicit stacks (reference solution)."""


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
