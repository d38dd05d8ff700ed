"""Public tests of dependencies: counts are returned as [name, count] pairs in a fixed
depth-first order of the nodes (so your dict's order does not matter)."""

import kael


def _nodes(root):
    order, seen, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(reversed([ni.edge for ni in node.inputs if ni.edge is not None]))
    return order


def _counts(m, root):
    deps = m.count_dependencies(root)
    return [[n.name(), deps.get(n)] for n in _nodes(root)] + [len(deps)]


def _is_topological(order, root):
    """each reachable node once, and each after every node with an edge to it"""
    position = {node: i for i, node in enumerate(order)}
    nodes = _nodes(root)
    if len(order) != len(nodes) or set(position) != set(nodes):
        return False
    return all(position[n] < position[ni.edge] for n in nodes for ni in n.inputs if ni.edge is not None)


def test_diamond_counts(m):
    """count_dependencies(y.grad_fn) for ADR 0005's diamond y = (x * 2 + x * 3).sum()"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2 + x * 3).sum()
    return _counts(m, y.grad_fn)


test_diamond_counts.expected = [['SumBackward', 0], ['AddBackward', 1], ['MulBackward', 1], ['AccumulateGrad', 2], ['MulBackward', 1], 5]


def test_repeated_input_counts_twice(m):
    """count_dependencies(y.grad_fn) for y = x * x: two edges to x's AccumulateGrad"""
    x = kael.tensor([3.0], requires_grad=True)
    return _counts(m, (x * x).grad_fn)


test_repeated_input_counts_twice.expected = [['MulBackward', 0], ['AccumulateGrad', 2], 2]


def test_constants_have_no_edges(m):
    """count_dependencies for y = (x * 2 + 1).exp(): None edges are not counted"""
    x = kael.tensor([1.0], requires_grad=True)
    return _counts(m, (x * 2 + 1).exp().grad_fn)


test_constants_have_no_edges.expected = [['ExpBackward', 0], ['AddBackward', 1], ['MulBackward', 1], ['AccumulateGrad', 1], 4]


def test_diamond_order_is_topological(m):
    """topological_order(y.grad_fn) for the diamond: every node once, after the nodes feeding it"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2 + x * 3).sum()
    order = m.topological_order(y.grad_fn)
    return [_is_topological(order, y.grad_fn), order[0] is y.grad_fn, order[-1].name()]


test_diamond_order_is_topological.expected = [True, True, 'AccumulateGrad']


def test_order_of_a_square(m):
    """topological_order(y.grad_fn) for y = (x * x).sum(): AccumulateGrad(x) is ready only after
    both of MulBackward's edges to it are counted down"""
    x = kael.tensor([3.0], requires_grad=True)
    return [n.name() for n in m.topological_order((x * x).sum().grad_fn)]


test_order_of_a_square.expected = ['SumBackward', 'MulBackward', 'AccumulateGrad']
