"""Hidden tests of hooks: seeded random graphs (shapes, depths, shared tensors), hooks that must
be gone afterwards, clipping above and below the limit, and the freeing of saved tensors."""

import random

import kael

OPS = ("tanh", "sigmoid", "exp_small", "square", "scale")


def _apply(op, t):
    if op == "tanh":
        return t.tanh()
    if op == "sigmoid":
        return t.sigmoid()
    if op == "exp_small":
        return (t * 0.1).exp()
    if op == "square":
        return t * t
    return t * 1.5


def _graph(seed):
    """a random chain of ops with a shared branch; returns (x, intermediates, loss)"""
    rng = random.Random(seed)
    kael.manual_seed(seed)
    x = kael.randn(rng.randint(1, 3), rng.randint(1, 4), requires_grad=True)
    hs = []
    h = x
    for _ in range(rng.randint(2, 5)):
        h = _apply(rng.choice(OPS), h)
        hs.append(h)
    shared = hs[rng.randrange(len(hs))]
    loss = (h * shared).sum() + shared.sum()
    return x, hs, loss


def test_record_gradients_random_graphs(m):
    """8 random graphs: recorded gradients of x and every intermediate equal kael.autograd.grad's"""
    out = []
    for seed in range(8):
        x, hs, loss = _graph(100 + seed)
        x2, hs2, loss2 = _graph(100 + seed)
        expected = kael.autograd.grad(loss2, [x2] + hs2)
        named = {"x": x, **{f"h{i}": h for i, h in enumerate(hs)}}
        seen = m.record_gradients(named, loss)
        same = all(
            name in seen and bool((kael.tensor(seen[name]) - e).abs().max() < 1e-5)
            for name, e in zip(named, expected)
        )
        out.append([same, sorted(seen), bool((x.grad - expected[0]).abs().max() < 1e-5)])
    return out


def test_record_gradients_removes_its_hooks(m):
    """record_gradients twice on two losses of the same leaf: the first result is not touched again"""
    w = kael.tensor([1.0, -2.0], requires_grad=True)
    first = m.record_gradients({"w": w}, (w * 3).sum())
    snapshot = {k: list(v) for k, v in first.items()}
    second = m.record_gradients({"w": w}, (w * w).sum())
    (w * 5).sum().backward()
    return [first == snapshot, first, second, w.grad.tolist()]


def test_record_gradients_of_a_tensor_used_twice(m):
    """h used in two places: its hook sees the summed gradient once"""
    x = kael.tensor([2.0], requires_grad=True)
    h = x.exp()
    seen = m.record_gradients({"h": h}, (h * 2 + h * h).sum())
    return seen


def test_clip_gradient_random(m):
    """clip_gradient on 10 random intermediates, limits above and below the gradient's norm"""
    rng = random.Random(2201)
    out = []
    for i in range(10):
        kael.manual_seed(i)
        n = rng.randint(1, 6)
        x = kael.randn(n, requires_grad=True)
        h = x * 2
        up = kael.randn(n) * rng.choice((0.1, 1.0, 10.0))
        limit = rng.choice((0.5, 1.0, 5.0))
        m.clip_gradient(h, limit)
        (h * up).sum().backward()
        out.append(x.grad.tolist())
    return out


def test_clip_gradient_leaves_the_callers_gradient_alone(m):
    """clip_gradient on 8 seeded outputs, then y.backward(g): the caller's g keeps its values (the
    hook returns a new tensor, never g.mul_()), the leaf gets the clipped gradient"""
    rng = random.Random(2202)
    out = []
    for i in range(8):
        kael.manual_seed(100 + i)
        x = kael.randn(rng.randint(1, 6), requires_grad=True)
        y = x * 3
        g = kael.randn(*y.shape) * rng.choice((0.1, 10.0))
        before = g.tolist()
        m.clip_gradient(y, rng.choice((0.5, 1.0, 5.0)))
        y.backward(g)
        out.append([g.tolist() == before, x.grad.tolist()])
    return out


def test_clip_gradient_on_a_leaf_and_remove(m):
    """clip_gradient on a leaf clips its .grad; after handle.remove() the next backward is not clipped"""
    w = kael.tensor([3.0, 4.0], requires_grad=True)
    handle = m.clip_gradient(w, 1.0)
    (w * w).sum().backward()
    clipped = w.grad.tolist()
    handle.remove()
    w.grad = None
    (w * w).sum().backward()
    return [clipped, w.grad.tolist()]


def test_execution_order_random_graphs(m):
    """execution_order on 8 random graphs: every reachable node once, in the engine's order"""
    out = []
    for seed in range(8):
        _, _, loss = _graph(200 + seed)
        out.append(m.execution_order(loss))
    return out


def test_execution_order_removes_its_hooks(m):
    """execution_order on two losses sharing a leaf: the first list does not grow afterwards"""
    x = kael.tensor([1.0], requires_grad=True)
    first = m.execution_order((x * 2).exp().sum())
    length = len(first)
    second = m.execution_order((x * x).sum())
    return [len(first) == length, first, second]


def test_execution_order_of_a_ladder(m):
    """execution_order on a ladder of 4 diamonds (sin + cos of the previous rung)"""
    x = kael.tensor([0.3], requires_grad=True)
    y = x
    for _ in range(4):
        y = y.sin() + y.cos()
    return m.execution_order(y.sum())


def test_backward_twice_random(m):
    """backward_twice on 5 random x: doubled gradients and a released graph"""
    out = []
    for i in range(5):
        kael.manual_seed(300 + i)
        x = kael.randn(i + 1, requires_grad=True)
        out.append(m.backward_twice(x))
    return out


def test_hidden_gradient_random(m):
    """hidden_gradient on 6 random x [a, b], w [b, c]"""
    rng = random.Random(2202)
    out = []
    for i in range(6):
        kael.manual_seed(400 + i)
        a, b, c = rng.randint(1, 3), rng.randint(1, 3), rng.randint(1, 3)
        x = kael.randn(a, b, requires_grad=True)
        w = kael.randn(b, c, requires_grad=True)
        out.append(m.hidden_gradient(x, w))
    return out


# -- the declared domain (harness/domain.py): the statement's whole input space ------------------

from judge_domain import Domain, node_numbers  # noqa: E402  (the judge copies harness/domain.py here)

DOMAIN = Domain("hooks")


def _named_graph(d):
    """(named, loss): a random graph's leaves and one or two intermediates, by name, and a loss
    that uses them all."""
    root, leaves = d.graph(max_ops=16)
    named = {f"x{i}": leaf for i, leaf in enumerate(leaves)}
    h = leaves[0].tanh() * 2.0
    named["h"] = h
    loss = root + (h * h).sum()
    if d.chance(0.5):
        d.label("an intermediate used twice")
        k = h * leaves[-1]
        named["k"] = k
        loss = loss + (k * k).sum() + k.sum()
    return named, loss, leaves


@DOMAIN.case("record_gradients", cases=120, classes=("an intermediate used twice", "constant operands",
                                                     "op same input twice", "op expand"))
def record_gradients_case(d, m):
    """record_gradients(named, loss) on a random graph with leaves and intermediates; then a
    second backward through the same leaves (no hook of the first call may run again)."""
    named, loss, leaves = _named_graph(d)
    seen = d.call("record_gradients(named, loss)", m.record_gradients, named, loss, watch=leaves)
    (leaves[0] * 5.0).sum().backward()
    d.note("the returned dict after another backward", seen)


@DOMAIN.case("clip_gradient", cases=160, classes=("rank 0", "rank 1", "rank 3", "size 0", "size 1",
                                                  "size n", "norm above max_norm", "norm not above max_norm",
                                                  "handle removed", "dtype float32", "dtype float64"))
def clip_gradient_case(d, m):
    """clip_gradient(h, max_norm) on h = x * 2 (x of rank 0-3, any layout), an upstream gradient
    above or below max_norm, the caller's gradient unchanged; then handle.remove() and a second
    backward that is not clipped."""
    x = d.tensor(d.shape(max_rank=3), d.dtype(), mix=d.choice(("ordinary", "zeros", "ties")), requires_grad=True)
    h = x * 2.0
    g = d.like(h, mix=d.choice(("ordinary", "ties", "zeros")))
    with kael.no_grad():
        norm = (g * g).sum().sqrt().item()
    max_norm = d.choice((0.5, 1.0, 3.0, 10.0, 100.0)) if norm else 1.0
    if d.chance(0.1) and norm:
        max_norm = norm  # exactly at the limit: left unchanged
    d.label("norm above max_norm" if norm > max_norm else "norm not above max_norm")
    d.inputs.append(f"max_norm {max_norm}")
    handle = d.call("clip_gradient(h, max_norm)", m.clip_gradient, h, max_norm)
    d.call("h.backward(g, retain_graph=True)", h.backward, g, retain_graph=True, watch=[x, g])
    if hasattr(handle, "remove") and d.chance(0.5):
        d.label("handle removed")
        d.call("handle.remove()", handle.remove)
        x.grad = None
        d.call("h.backward(g) after remove", h.backward, g, watch=[x, g])


@DOMAIN.case("execution_order", cases=120, classes=("constant operands", "op same input twice",
                                                    "op expand", "op sum", "more than 20 operations"))
def execution_order_case(d, m):
    """execution_order(loss) on a random graph, then a plain backward of another root over the
    same leaves (the pre-hooks must be gone)."""
    root, leaves = d.graph(max_ops=24)
    nodes = list(node_numbers(root.grad_fn))
    d.call("execution_order(loss)", m.execution_order, root, watch=leaves)
    d.note("pre-hooks left on the graph's nodes", sum(len(n._pre_hooks or ()) for n in nodes))
    d.call("another backward over the same leaves", _another_backward, leaves, watch=leaves)


def _another_backward(leaves):
    (leaves[0] * leaves[-1]).sum().backward()


@DOMAIN.case("backward_twice_hidden_gradient", cases=160, classes=(
    "backward_twice", "hidden_gradient", "dtype float32", "dtype float64", "values zeros", "values ties"))
def twice_and_hidden_case(d, m):
    """backward_twice(x) for x of rank 0-3, or hidden_gradient(x, w) for x [n, k], w [k, p]
    (relu at exact zeros included), any layout, float32 or float64."""
    dtype = d.dtype()
    if d.chance(0.5):
        d.label("backward_twice")
        x = d.tensor(d.shape(max_rank=3), dtype, mix=d.choice(("ordinary", "zeros", "ties")), requires_grad=True)
        d.call("backward_twice(x)", m.backward_twice, x)
        return
    d.label("hidden_gradient")
    n, k, p = d.integer(1, 3), d.integer(1, 3), d.integer(1, 3)
    x = d.tensor((n, k), dtype, mix=d.choice(("ordinary", "zeros", "ties")), requires_grad=True)
    w = d.tensor((k, p), dtype, mix=d.choice(("ordinary", "zeros")), requires_grad=True)
    d.call("hidden_gradient(x, w)", m.hidden_gradient, x, w)


def test_domain_record_gradients(m):
    """record_gradients(named, loss) on 120 generated graphs over the statement's domain"""
    return DOMAIN.run(m, "record_gradients")


def test_domain_clip_gradient(m):
    """clip_gradient(t, max_norm) on 160 generated cases over the statement's domain"""
    return DOMAIN.run(m, "clip_gradient")


def test_domain_execution_order(m):
    """execution_order(loss) on 120 generated graphs over the statement's domain"""
    return DOMAIN.run(m, "execution_order")


def test_domain_backward_twice_hidden_gradient(m):
    """backward_twice(x) and hidden_gradient(x, w) on 160 generated cases"""
    return DOMAIN.run(m, "backward_twice_hidden_gradient")
