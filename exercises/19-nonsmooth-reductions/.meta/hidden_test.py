"""Hidden tests of nonsmooth: seeded random tensors full of ties and zeros (values drawn from a
few integers), random dims and dtypes. Each case returns the submission's gradient; the
reference's run, in its own process, gives the expected one."""

import random

import kael

DTYPES = (kael.float32, kael.float64)


def _tied(rng, shape, values=(-1.0, 0.0, 1.0, 2.0)):
    n = 1
    for s in shape:
        n *= s
    return [rng.choice(values) for _ in range(n)]


def _gradient(mine, x):
    """[your result, your gradient, its dtype]"""
    a = x.detach().requires_grad_()
    ya = mine(a)
    ya = ya[0] if isinstance(ya, tuple) else ya
    kael.manual_seed(55)
    ya.backward(kael.randn(*ya.shape, dtype=ya.dtype))
    return [ya.tolist(), a.grad.tolist(), a.grad.dtype.name]


def _cases(seed, count, lo_rank=1, hi_rank=3):
    rng = random.Random(seed)
    for _ in range(count):
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(lo_rank, hi_rank)))
        dim = rng.randrange(-len(shape), len(shape))
        x = kael.tensor(_tied(rng, shape), dtype=rng.choice(DTYPES)).reshape(shape)
        yield x, dim


def test_amax_random_ties(m):
    """amax over a random dim of 12 random tensors full of ties (ranks 1 to 3, both dtypes)"""
    return [_gradient(lambda t: m.amax(t, dim), x) for x, dim in _cases(1901, 12)]


def test_max_dim_random_ties(m):
    """max_dim over a random dim of 12 random tensors full of ties: values, indices, gradient"""
    out = []
    for x, dim in _cases(1902, 12):
        values, indices = m.max_dim(x, dim)
        ref_values, ref_indices = x.max(dim)
        out.append([values.tolist(), indices.tolist(), indices.tolist() == ref_indices.tolist(),
                    _gradient(lambda t: m.max_dim(t, dim), x)])
    return out


def test_max_dim_indices_have_no_gradient(m):
    """max_dim's indices are int64 and carry no grad_fn; only the values have one"""
    x = kael.tensor([[1.0, 5.0], [5.0, 5.0]], requires_grad=True)
    values, indices = m.max_dim(x, 0)
    return [indices.dtype.name, indices.grad_fn is None, indices.requires_grad, values.grad_fn.name()]


def test_amax_of_all_equal_row(m):
    """amax(x, 1) of a row of 8 equal values: each gets 1/8"""
    return _gradient(lambda t: m.amax(t, 1), kael.full((1, 8), 3.0))


def test_amax_and_max_differ_on_ties(m):
    """the same tied row through amax and through max_dim: two different, valid subgradients"""
    x = kael.tensor([[4.0, 4.0, 1.0]])
    a = x.detach().requires_grad_()
    b = x.detach().requires_grad_()
    m.amax(a, 1).sum().backward()
    m.max_dim(b, 1)[0].sum().backward()
    return [a.grad.tolist(), b.grad.tolist()]


def test_relu_random(m):
    """relu on 8 random tensors with many exact zeros"""
    return [_gradient(m.relu, x) for x, _ in _cases(1903, 8)]


def test_abs_random(m):
    """abs on 8 random tensors with many exact zeros"""
    return [_gradient(m.abs, x) for x, _ in _cases(1904, 8)]


def test_relu_abs_keep_dtype_and_upstream(m):
    """relu and abs of float64 [0, -2, 3] with upstream weights [5, 7, 11]"""
    out = []
    for fn in (m.relu, m.abs):
        x = kael.tensor([0.0, -2.0, 3.0], dtype=kael.float64, requires_grad=True)
        (fn(x) * kael.tensor([5.0, 7.0, 11.0], dtype=kael.float64)).sum().backward()
        out.append([x.grad.tolist(), x.grad.dtype.name])
    return out


def test_safe_sqrt_random(m):
    """safe_sqrt on 8 random tensors with zeros and negatives: values, gradients, any NaN"""
    rng = random.Random(1905)
    out = []
    for _ in range(8):
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 3)))
        x = kael.tensor(_tied(rng, shape, (-9.0, -1.0, 0.0, 0.0, 1.0, 4.0, 2.25)),
                        dtype=rng.choice(DTYPES)).reshape(shape).requires_grad_()
        y = m.safe_sqrt(x)
        (y * 3.0).sum().backward()
        out.append([y.tolist(), x.grad.tolist(), bool(x.grad.isnan().any())])
    return out


def test_safe_sqrt_inside_a_loss(m):
    """a loss that uses safe_sqrt of a value that is exactly 0 for half the batch: no NaN reaches w"""
    w = kael.tensor([1.0, -1.0], requires_grad=True)
    x = kael.tensor([[1.0, 1.0], [2.0, 0.5], [3.0, 3.0], [0.0, 0.0]])
    loss = m.safe_sqrt(x @ w).sum()
    loss.backward()
    return [loss.item(), w.grad.tolist()]


def test_safe_sqrt_of_a_positive_tensor(m):
    """safe_sqrt of positive values equals sqrt, gradient 1 / (2 sqrt(x))"""
    x = kael.tensor([0.25, 1.0, 16.0], requires_grad=True)
    m.safe_sqrt(x).sum().backward()
    return x.grad.tolist()


def test_no_tensor_kept_as_a_ctx_attribute(m):
    """Amax, MaxDim, Relu and Abs on 8 seeded tensors each: the node keeps no tensor as a plain
    ctx attribute (save_for_backward's tensors are version-checked, ctx attributes are not)"""
    out = []
    for i, (x, dim) in enumerate(_cases(1919, 8)):
        a = x.detach().requires_grad_()
        for name, args in (("Amax", (a, dim)), ("MaxDim", (a, dim)), ("Relu", (a,)), ("Abs", (a,))):
            y = getattr(m, name).apply(*args)
            node = (y[0] if isinstance(y, tuple) else y).grad_fn
            out.append([name, sorted(k for k, v in vars(node).items() if isinstance(v, kael.Tensor)
                                     or isinstance(v, (tuple, list)) and any(isinstance(t, kael.Tensor) for t in v))])
    return out


# -- the declared domain (harness/domain.py): the statement's whole input space ------------------

from judge_domain import Domain  # noqa: E402  (the judge copies harness/domain.py beside this file)

DOMAIN = Domain("nonsmooth-reductions")
FINITE = ("ordinary", "zeros", "huge", "tiny", "ties", "near ties")  # nan is not in the domain
SHAPE_CLASSES = ("rank 1", "rank 2", "rank 4", "size 1", "size n")
VIEW_CLASSES = ("layout contiguous", "layout transposed", "layout stepped", "layout expanded")
VALUE_CLASSES = tuple(f"values {mix}" for mix in FINITE) + ("values infinite", "dtype float32", "dtype float64")


def _backward(y, g, x):
    """y.backward(g): x's gradient is in the step's effects."""
    y.backward(g)


def _reduced_input(d):
    """x of rank 1-4 in any layout and finite value mix, the reduced dim not empty; a dim in
    [-rank, rank)."""
    shape = list(d.shape(rank=d.integer(1, 4)))
    dim = d.integer(-len(shape), len(shape) - 1)
    d.label("dim negative" if dim < 0 else "dim positive")
    if shape[dim] == 0:
        shape[dim] = 2
    x = _with_infinities(d, d.tensor(shape, d.dtype(), mix=d.choice(FINITE)))
    d.inputs.append(f"dim {dim}")
    return x, dim


@DOMAIN.case("amax", cases=200, classes=SHAPE_CLASSES + VIEW_CLASSES + VALUE_CLASSES + (
    "size 0", "dim negative", "dim positive", "again on another dim"))
def amax_case(d, m):
    """Amax(x, dim): forward, backward through the engine and directly; then again over another
    dim of the same x (state kept between calls shows)."""
    x, dim = _reduced_input(d)
    d.function_steps("Amax", m.Amax, [x, dim])
    other = (dim + 1) % x.ndim
    if x.ndim > 1 and x.shape[other] > 0 and d.chance(0.4):
        d.label("again on another dim")
        d.function_steps("Amax (another dim)", m.Amax, [x, other])


@DOMAIN.case("max_dim", cases=150, classes=SHAPE_CLASSES + VIEW_CLASSES + VALUE_CLASSES + (
    "size 0", "dim negative", "dim positive"))
def max_dim_case(d, m):
    """MaxDim(x, dim): (values, indices) through apply, forward and backward called directly
    with a ctx the test built, then the values' backward through the engine."""
    x, dim = _reduced_input(d)
    shape = tuple(x.shape)
    g = d.tensor(shape[:dim % x.ndim] + shape[dim % x.ndim + 1:], x.dtype, mix="ordinary")
    out = d.function_steps("MaxDim", m.MaxDim, [x, dim], grad_outputs=g)
    if isinstance(out, tuple) and out and isinstance(out[0], kael.Tensor) and out[0].requires_grad:
        d.call("MaxDim values backward (engine)", _backward, out[0], g, x)


def _elementwise(d):
    """x of rank 0-4 (sizes 0, 1, n) in any layout and value mix (no nan)."""
    return _with_infinities(d, d.tensor(d.shape(), d.dtype(), mix=d.choice(FINITE)))


def _with_infinities(d, x):
    """x itself, or (a fifth of the time) a copy with some elements set to +inf or -inf (the
    statement allows infinities, not nan); requiring grad."""
    if d.chance(0.2) and x.numel():
        d.label("values infinite")
        signs = kael.tensor([d.choice((-1.0, 0.0, 0.0, 1.0)) for _ in range(x.numel())], dtype=x.dtype)
        signs = signs.reshape(x.shape)
        x = kael.where(signs == 0, x, signs * float("inf"))
    return x.requires_grad_(True)


@DOMAIN.case("relu_abs", cases=200, classes=SHAPE_CLASSES + VIEW_CLASSES + VALUE_CLASSES + (
    "rank 0", "size 0", "Relu", "Abs"))
def relu_abs_case(d, m):
    """Relu(x) or Abs(x) of rank 0-4 (sizes 0, 1, n) full of exact and signed zeros: forward,
    backward through the engine and directly."""
    cls = d.choice((m.Relu, m.Abs))
    d.label("Relu" if cls is m.Relu else "Abs")
    d.function_steps("Relu" if cls is m.Relu else "Abs", cls, [_elementwise(d)])


@DOMAIN.case("safe_sqrt", cases=150, classes=SHAPE_CLASSES + VIEW_CLASSES + VALUE_CLASSES + (
    "rank 0", "size 0", "upstream not ones"))
def safe_sqrt_case(d, m):
    """safe_sqrt(x) of rank 0-4 with zeros, negatives and positives; its backward with an
    upstream gradient of ones or drawn."""
    x = _elementwise(d)
    y = d.call("safe_sqrt(x)", m.safe_sqrt, x)
    if isinstance(y, kael.Tensor) and y.requires_grad:
        if d.chance(0.5):
            d.label("upstream not ones")
            g = d.like(y, mix="ordinary")
        else:
            g = kael.ones_like(y)
        d.call("safe_sqrt backward", _backward, y, g, x)


def test_domain_amax(m):
    """Amax(x, dim) on 200 generated cases over the statement's domain"""
    return DOMAIN.run(m, "amax")


def test_domain_max_dim(m):
    """MaxDim(x, dim) on 150 generated cases over the statement's domain"""
    return DOMAIN.run(m, "max_dim")


def test_domain_relu_abs(m):
    """Relu(x) and Abs(x) on 200 generated cases over the statement's domain"""
    return DOMAIN.run(m, "relu_abs")


def test_domain_safe_sqrt(m):
    """safe_sqrt(x) on 150 generated cases over the statement's domain"""
    return DOMAIN.run(m, "safe_sqrt", grad_fn=False)  # built from kael ops: any last op
