"""Hidden tests of deep_chain: named regression cases, then seeded generated ones."""

import random

import kael

_built = {}


CHAIN = 10_000  # ten times Python's default recursion limit (which the judge keeps fixed)


def _long_chain():
    """A chain of 10,000 negations (built once per run, shared by the cases below; negation is
    kael's cheapest node, so building it stays well under a second)."""
    if "y" not in _built:
        x = kael.tensor([1.0], requires_grad=True)
        y = x
        for _ in range(CHAIN):
            y = -y
        _built["y"] = y
    return _built["y"]


def test_count_nodes_long_chain(m):
    """count_nodes on a chain of 10,000 negations"""
    return m.count_nodes(_long_chain().grad_fn)


def test_depth_long_chain(m):
    """depth on a chain of 10,000 negations"""
    return m.depth(_long_chain().grad_fn)


def test_ladder_counts_nodes_once(m):
    """12 rungs of y = y * 2 + y * 3: 4,096 paths, 37 distinct nodes"""
    x = kael.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(12):
        y = y * 2 + y * 3
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


def test_longest_not_first_reached(m):
    """y = x.exp() + deep(x), deep = 20 sines: depth follows the long branch"""
    x = kael.tensor([0.5], requires_grad=True)
    z = x
    for _ in range(20):
        z = z.sin()
    y = x.exp() + z
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


def test_long_branch_first(m):
    """y = deep(x) + x.exp(): the same graph with the branches swapped"""
    x = kael.tensor([0.5], requires_grad=True)
    z = x
    for _ in range(20):
        z = z.sin()
    y = z + x.exp()
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


def test_constants_have_no_edge(m):
    """y = (x * 2 + 1).sum() with constants: None edges are not nodes"""
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2 + 1).sum()
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


def test_leaf_node_alone(m):
    """for an AccumulateGrad node itself: 1 node, depth 1"""
    x = kael.tensor([1.0], requires_grad=True)
    node = (x * 2).grad_fn.next_functions[0][0]
    return [m.count_nodes(node), m.depth(node)]


def test_deep_diamonds(m):
    """700 steps of y = y.sin() + y.cos(): deep (1,401 levels) and shared"""
    x = kael.tensor([0.1], dtype=kael.float64, requires_grad=True)
    y = x
    for _ in range(700):
        y = y.sin() + y.cos()
    return [m.count_nodes(y.grad_fn), m.depth(y.grad_fn)]


# -- seeded generated DAGs ----------------------------------------------------------------------------


def _layered_dag(rng):
    """A seeded DAG in 2-12 layers of 1-3 values; each value combines one or two values of any
    earlier layer (skip connections make long and short paths to the same node), with a repeated
    operand now and then; the root sums the last layer."""
    layers = [[kael.tensor([rng.uniform(0.1, 0.9)], requires_grad=True) for _ in range(rng.randint(1, 2))]]
    for _ in range(rng.randint(2, 12)):
        earlier = [v for layer in layers for v in layer]
        layer = []
        for _ in range(rng.randint(1, 3)):
            a = rng.choice(layers[-1]) if rng.random() < 0.6 else rng.choice(earlier)
            kind = rng.randrange(4)
            if kind == 0:
                layer.append(a.sin())
            elif kind == 1:
                layer.append(a * rng.choice(earlier))
            elif kind == 2:
                layer.append(a + a)
            else:
                layer.append((a * 0.5).exp())
        layers.append(layer)
    total = layers[-1][0]
    for v in layers[-1][1:]:
        total = total + v
    return total.sum()


def test_generated_dags(m):
    """40 seeded layered DAGs with skip connections, shared nodes and repeated operands:
    count_nodes and depth of each"""
    rng = random.Random(1212)
    out = []
    for _ in range(40):
        y = _layered_dag(rng)
        out.append([m.count_nodes(y.grad_fn), m.depth(y.grad_fn)])
    return out
