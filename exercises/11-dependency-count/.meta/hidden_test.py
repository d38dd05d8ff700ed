"""Hidden tests of dependencies: named regression cases, then seeded generated ones."""

import random

import kael
import kael.nn as nn
from public_test import _counts, _nodes  # helpers shared with the public tests


def _edges_in(root):
    counts = {}
    for n in _nodes(root):
        for ni in n.inputs:
            if ni.edge is not None:
                counts[ni.edge] = counts.get(ni.edge, 0) + 1
    return counts


def _is_topological(order, root):
    position = {}
    for i, node in enumerate(order):
        if node in position:
            return False
        position[node] = i
    nodes = _nodes(root)
    if len(order) != len(nodes) or set(position) != set(nodes):
        return False
    return all(position[n] < position[ni.edge] for n in nodes for ni in n.inputs if ni.edge is not None)


def test_cube(m):
    """count_dependencies for y = x * x * x"""
    x = kael.tensor([2.0], requires_grad=True)
    return _counts(m, (x * x * x).grad_fn)


def test_fan_out(m):
    """a leaf used by 50 different operations, summed: its count is 50"""
    x = kael.tensor([1.0], requires_grad=True)
    y = x * 1.0
    for i in range(2, 51):
        y = y + x * float(i)
    deps = m.count_dependencies(y.grad_fn)
    acc = [n for n in deps if isinstance(n, kael.autograd.AccumulateGrad)]
    return [len(acc), deps[acc[0]], len(deps)]


def test_counts_equal_edges(m):
    """on a small transformer-like block, every count equals the number of edges into the node"""
    kael.manual_seed(0)
    x = kael.randn(3, 4, requires_grad=True)
    w = kael.randn(4, 4, requires_grad=True)
    h = (x @ w).softmax(-1) @ w.T + x
    y = (h * h).mean() + h.tanh().sum()
    deps = m.count_dependencies(y.grad_fn)
    edges = _edges_in(y.grad_fn)
    return [all(deps.get(n) == edges.get(n, 0) for n in _nodes(y.grad_fn)), len(deps) == len(_nodes(y.grad_fn))]


def test_mlp(m):
    """count_dependencies for an MLP loss: names and counts"""
    kael.manual_seed(1)
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    loss = nn.functional.mse_loss(net(kael.randn(5, 3)), kael.zeros(5, 2))
    return _counts(m, loss.grad_fn)


def test_deep_chain_counts(m):
    """a chain of 5,000 additions: every count is 1 (no recursion)"""
    x = kael.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(5000):
        y = y + 1.0
    deps = m.count_dependencies(y.grad_fn)
    return [len(deps), sorted(set(deps.values()))]


def test_deep_chain_order(m):
    """topological_order on a chain of 3,000 multiplications with a diamond at the bottom"""
    x = kael.tensor([1.0], requires_grad=True)
    y = x * 2 + x.exp()
    for _ in range(3000):
        y = y * 1.0001
    order = m.topological_order(y.grad_fn)
    return [len(order), _is_topological(order, y.grad_fn)]


def test_ladder_order(m):
    """topological_order on a ladder of 20 diamonds (each rung's node used twice)"""
    x = kael.tensor([0.5], requires_grad=True)
    y = x
    for _ in range(20):
        y = y.sin() + y.cos()
    order = m.topological_order(y.grad_fn)
    return [len(order), _is_topological(order, y.grad_fn)]


def test_order_with_long_and_short_paths(m):
    """a node fed by a short path and a long one comes after both"""
    x = kael.tensor([1.0], requires_grad=True)
    a = x.exp()
    long_path = a
    for _ in range(5):
        long_path = long_path * 1.5
    y = (long_path + a).sum()
    order = m.topological_order(y.grad_fn)
    return [_is_topological(order, y.grad_fn), [n.name() for n in order][-2:]]


def test_root_alone(m):
    """count_dependencies of an AccumulateGrad node alone: {node: 0}"""
    x = kael.tensor([1.0], requires_grad=True)
    acc = (x * 1).grad_fn.next_functions[0][0]
    deps = m.count_dependencies(acc)
    return [len(deps), deps.get(acc), [n.name() for n in m.topological_order(acc)]]


def test_counts_reach_zero_in_order(m):
    """replaying topological_order and decrementing the counts: each node is at 0 when reached"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    w = kael.tensor([3.0, 4.0], requires_grad=True)
    y = ((x * w).exp() + x * x + w).sum()
    deps = dict(m.count_dependencies(y.grad_fn))
    ok = True
    for node in m.topological_order(y.grad_fn):
        ok = ok and deps[node] == 0
        for ni in node.inputs:
            if ni.edge is not None:
                deps[ni.edge] -= 1
    return ok


# -- repeated edges, seeded generated graphs ---------------------------------------------------------


def test_repeated_edge_to_an_inner_node(m):
    """y = a * a for a = x.exp(): ExpBackward has two edges from MulBackward; the order must still
    reach it (and x's node) after both are counted down"""
    x = kael.tensor([0.5], requires_grad=True)
    a = x.exp()
    y = (a * a).sum()
    order = m.topological_order(y.grad_fn)
    return [_counts(m, y.grad_fn), len(order), _is_topological(order, y.grad_fn)]


_OPS = (
    lambda a, b: a * b,
    lambda a, b: a + b,
    lambda a, b: a * a,  # a repeated edge
    lambda a, b: a.sin(),
    lambda a, b: (a - b) * 2.0,
)


def _random_graph(rng):
    """A seeded graph: 1-3 leaves (and a constant), then 4-30 ops on values picked from the
    pool so far (repeated edges, shared nodes, long and short paths); the sum of the last two."""
    pool = [kael.tensor([rng.uniform(-1, 1)], requires_grad=True) for _ in range(rng.randint(1, 3))]
    pool.append(kael.tensor([2.0]))
    for _ in range(rng.randint(4, 30)):
        a, b = rng.choice(pool), rng.choice(pool)
        pool.append(rng.choice(_OPS)(a, b))
    root = pool[-1] + pool[-2] if pool[-2].requires_grad or pool[-1].requires_grad else pool[0] * 1
    return root.sum()


def test_generated_graphs(m):
    """40 seeded graphs with repeated edges and shared nodes: every count, and whether the order
    is topological"""
    rng = random.Random(1111)
    out = []
    for _ in range(40):
        y = _random_graph(rng)
        out.append([_counts(m, y.grad_fn), _is_topological(m.topological_order(y.grad_fn), y.grad_fn)])
    return out


# -- the declared domain (harness/domain.py): random graphs of kael operations ---------------------

from judge_domain import GRAPH_OPS, Domain, node_numbers  # noqa: E402  (harness/domain.py, copied here)

DOMAIN = Domain("dependency-count")


def _counts_seen(names, counts):
    """The counts as plain data: the type, then ``[node's number, count]`` sorted, with "?" for
    a key that is not a reachable node."""
    if not isinstance(counts, dict):
        return [type(counts).__name__]
    return [type(counts).__name__, sorted([str(names[k]) if k in names else "?", v] for k, v in counts.items())]


def _order_seen(names, order):
    """The order as plain data: its type, whether it holds every reachable node once, and whether
    each comes after every node with an edge to it."""
    if not isinstance(order, (list, tuple)):
        return [type(order).__name__]
    return [type(order).__name__, sorted(names.get(n, -1) for n in order) == list(range(len(names))),
            _is_topological(list(order), next(iter(names)))]


@DOMAIN.case("graphs", cases=240, classes=tuple(f"op {o}" for o in GRAPH_OPS) + (
    "constant operands", "more than 20 operations", "asked twice", "another graph in between",
    "caller changes the result"))
def graphs_case(d, m):
    """count_dependencies and topological_order of a random graph; now and then each asked twice
    of the same root (nothing kept from one call to the next), or the counts of another graph
    asked in between, or the caller's changes to a returned dict before asking again."""
    root = d.graph()[0].grad_fn
    names = node_numbers(root)
    d.inputs.append(f"{len(names)} nodes reachable from {root.name()}")
    how = d.choice(("once", "once", "once", "asked twice", "another graph in between",
                    "caller changes the result"))
    if how != "once":
        d.label(how)
    if how in ("another graph in between", "caller changes the result"):
        _calls_in_one_process(d, m, root, names, how)
        return
    for _ in range(2 if how == "asked twice" else 1):
        d.call("count_dependencies(root)", lambda: _counts_seen(names, m.count_dependencies(root)))
        d.call("topological_order(root)", lambda: _order_seen(names, m.topological_order(root)))


def _calls_in_one_process(d, m, root, names, how):
    """The first counts, then another graph's counts (or the caller clearing and changing the
    first dict, then the same root again): each result as it is after the later call. Each call
    returns a new dict of its own."""
    first = []
    d.call("count_dependencies(root)", lambda: first.append(m.count_dependencies(root)) or _counts_seen(names, first[0]))
    if not first:
        return
    if how == "another graph in between":
        other = d.graph()[0].grad_fn
        other_names = node_numbers(other)
        d.call("count_dependencies(another root)", lambda: _counts_seen(other_names, m.count_dependencies(other)))
    else:
        d.call("the caller clears the dict and puts 99 under the root", lambda: _scribble(first[0], root))
        d.call("count_dependencies(root) again", lambda: _counts_seen(names, m.count_dependencies(root)))
        d.call("topological_order(root) after that", lambda: _order_seen(names, m.topological_order(root)))
    d.call("the first result, after the later call", lambda: _counts_seen(names, first[0]))


def _scribble(counts, root):
    if isinstance(counts, dict):
        counts.clear()
        counts[root] = 99
    return None


def test_domain_graphs(m):
    """count_dependencies and topological_order on 240 generated graphs (fan-out, diamonds, an
    input used twice, constants, views, up to 30 operations): every count, a valid order"""
    return DOMAIN.run(m, "graphs")
