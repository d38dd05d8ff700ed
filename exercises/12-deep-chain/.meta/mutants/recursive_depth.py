"""Mutant: depth with a memoized recursive function: right on small graphs, RecursionError on a
deep chain."""


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


def depth(fn, memo=None):
    memo = {} if memo is None else memo
    if fn not in memo:
        memo[fn] = 1 + max((depth(c, memo) for c in _children(fn)), default=0)
    return memo[fn]
