"""Hidden tests of gather: seeded random shapes, dims, dtypes and index lists full of repeats
and negative positions. Each case returns the submission's gradient; the reference's run, in its
own process, gives the expected one."""

import random

import kael

DTYPES = (kael.float32, kael.float64)


def _indices(rng, n, k):
    """k positions in [-n, n), most of them repeats"""
    pool = [rng.randrange(-n, n) for _ in range(max(1, n // 2))]
    return [rng.choice(pool) for _ in range(k)]


def _gradient(mine, x):
    """[y, your gradient, its dtype]"""
    a = x.detach().requires_grad_()
    ya = mine(a)
    kael.manual_seed(77)
    ya.backward(kael.randn(*ya.shape, dtype=ya.dtype))
    return [ya.tolist(), a.grad.tolist(), a.grad.dtype.name]


def test_scatter_add_rows_random(m):
    """scatter_add_rows on 6 random cases: 1 to 3 dims per row, 1 to 9 rows, many repeats"""
    rng = random.Random(1801)
    kael.manual_seed(1)
    out = []
    for _ in range(6):
        n = rng.randint(1, 5)
        k = rng.randint(1, 9)
        rest = tuple(rng.randint(1, 3) for _ in range(rng.randint(0, 2)))
        index = kael.tensor([rng.randrange(n) for _ in range(k)])
        src = kael.randn(k, *rest, dtype=rng.choice(DTYPES))
        r = m.scatter_add_rows(n, index, src)
        out.append([r.tolist(), r.dtype.name])
    return out


def test_index_select_random(m):
    """12 random index_selects: ranks 1 to 3, any dim (also negative), repeats, negative indices"""
    rng = random.Random(1802)
    kael.manual_seed(2)
    out = []
    for _ in range(12):
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 3)))
        dim = rng.randrange(-len(shape), len(shape))
        index = kael.tensor(_indices(rng, shape[dim], rng.randint(1, 7)))
        x = kael.randn(*shape, dtype=rng.choice(DTYPES))
        out.append(_gradient(lambda t: m.index_select(t, dim, index), x))
    return out


def test_index_select_every_dim(m):
    """index_select along every dim of [-ndim, ndim) for ranks 1 to 4 (seeded sizes 2 to 4, so
    no two dims can be confused), repeats and negative indices, float32 and float64"""
    rng = random.Random(1808)
    kael.manual_seed(8)
    out = []
    for rank in range(1, 5):
        for dim in range(-rank, rank):
            shape = tuple(rng.randint(2, 4) for _ in range(rank))
            index = kael.tensor(_indices(rng, shape[dim], rng.randint(1, 5)))
            x = kael.randn(*shape, dtype=rng.choice(DTYPES))
            out.append(_gradient(lambda t: m.index_select(t, dim, index), x))
    return out


def test_take_random(m):
    """10 random takes: x of rank 1 to 3, index of shape [k] or [a, b], repeats and negatives"""
    rng = random.Random(1803)
    kael.manual_seed(3)
    out = []
    for _ in range(10):
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 3)))
        n = 1
        for s in shape:
            n *= s
        ishape = rng.choice(((rng.randint(1, 8),), (rng.randint(1, 3), rng.randint(1, 3))))
        count = 1
        for s in ishape:
            count *= s
        index = kael.tensor(_indices(rng, n, count)).reshape(ishape)
        x = kael.randn(*shape, dtype=rng.choice(DTYPES))
        out.append(_gradient(lambda t: m.take(t, index), x))
    return out


def test_one_row_two_hundred_times(m):
    """index_select(x, 0, [1] * 200) of a [3, 2] x: row 1 gets 200 contributions"""
    x = kael.ones(3, 2, requires_grad=True)
    m.index_select(x, 0, kael.tensor([1] * 200)).sum().backward()
    return x.grad.tolist()


def test_embedding_lookup(m):
    """an embedding table [5, 3] looked up by a batch of token ids with repeats, through a loss"""
    kael.manual_seed(4)
    table = kael.randn(5, 3, requires_grad=True)
    tokens = kael.tensor([4, 1, 4, 4, 0, 1])
    emb = m.index_select(table, 0, tokens)
    loss = (emb.tanh() * kael.arange(1.0, 4.0)).sum()
    loss.backward()
    return [round(loss.item(), 5), table.grad.tolist()]


def test_select_then_select(m):
    """take(index_select(x, 1, [0, 0, 2]), [0, 0, 5]): repeats at both levels multiply"""
    x = kael.ones(2, 3, requires_grad=True)
    m.take(m.index_select(x, 1, kael.tensor([0, 0, 2])), kael.tensor([0, 0, 5])).sum().backward()
    return x.grad.tolist()


def test_upstream_gradient_reaches_each_copy(m):
    """take(x, [0, 0]) * [2, 3]: x[0]'s gradient is 2 + 3, not one of them"""
    x = kael.tensor([1.0], requires_grad=True)
    (m.take(x, kael.tensor([0, 0])) * kael.tensor([2.0, 3.0])).sum().backward()
    return x.grad.tolist()


def test_index_gets_no_gradient(m):
    """the node's backward returns None for the dim and the index"""
    x = kael.ones(3, requires_grad=True)
    y = m.index_select(x, 0, kael.tensor([2, 2]))
    grads = y.grad_fn.function.backward(y.grad_fn, kael.ones(2))
    return [len(grads), grads[0].tolist(), grads[1] is None, grads[2] is None]


# Finite float64 gradients outside float32's range or precision: large ones (1e39 and beyond
# overflow float32), tiny ones (1e-50 and below flush to 0 there) and ordinary ones float32 rounds
# (0.1, 1/3). Each gradient has one sign and one group, so a row's sum is the same (to an ulp) in
# any order, and every value is compared relative to its size (atol 0).
_WIDE = {
    "large": (1e300, 2.5e250, 1e39, 7.0e120),
    "tiny": (1e-300, 3.0e-200, 1e-50, 4.0e-39),
    "fine": (0.1, 1.0 / 3.0, 1.2345678901234567e-10, 123456.789),
    "all": (1e300, 1e-300, 1e39, 1e-50, 0.1, 2.5e250, 3.0e-200, 1.0 / 3.0),
}


def _wide(shape, group, sign=1.0):
    """A float64 tensor of ``shape`` holding ``group``'s values (times ``sign``), cycled."""
    count = 1
    for s in shape:
        count *= s
    values = _WIDE[group]
    return kael.tensor([sign * values[i % len(values)] for i in range(count)], dtype=kael.float64).reshape(tuple(shape))


def _wide_backward(select, x, group, sign=1.0):
    """select(x) of a float64 leaf x, backward with a wide-range gradient: [x.grad, its dtype]"""
    a = x.detach().requires_grad_()
    y = select(a)
    y.backward(_wide(y.shape, group, sign))
    return [a.grad.tolist(), a.grad.dtype.name]


def test_float64_values_keep_their_range(m):
    """scatter_add_rows of a float64 src, and the index_select and take backwards of a float64
    gradient, holding large (1e39 to 1e300), tiny (1e-300 to 4e-39) or finely rounded (0.1, 1/3)
    finite values, with repeated indices: each result accurate relative to its size (rtol 1e-12,
    atol 0): computed in float64, not overflowed to inf, flushed to 0 or rounded to float32"""
    out = []
    index = kael.tensor([2, 0, 2, 3, 2, 0])
    for group, sign in (("large", 1.0), ("tiny", -1.0), ("fine", 1.0), ("all", -1.0)):
        r = m.scatter_add_rows(4, index, _wide((6, 2), group, sign))
        out.append([r.tolist(), r.dtype.name])
    x = kael.tensor([[0.5 * (i + 3 * j) for i in range(3)] for j in range(4)], dtype=kael.float64)
    out.append(_wide_backward(lambda t: m.index_select(t, 0, kael.tensor([1, 1, -1, 0, 1])), x, "large"))
    out.append(_wide_backward(lambda t: m.index_select(t, -1, kael.tensor([2, 2, 0])), x.t(), "tiny", -1.0))
    out.append(_wide_backward(lambda t: m.index_select(t, 1, kael.tensor([0, 2, 0, 0])), x, "fine"))
    out.append(_wide_backward(lambda t: m.take(t, kael.tensor([[5, 5, -1], [0, 11, 5]])), x, "all"))
    out.append(_wide_backward(lambda t: m.take(t, kael.tensor([3, 3, 3, 7])), x.t(), "tiny"))
    return out


test_float64_values_keep_their_range.rtol = 1e-12
test_float64_values_keep_their_range.atol = 0.0


def test_take_with_a_transposed_index(m):
    """take(x, index) with 2-d int64 indices that are transposed views (not contiguous across
    their two dims), repeats and negative positions: the result has the index's shape, the
    gradient x's shape"""
    kael.manual_seed(9)
    out = []
    for shape, rows in (((3, 4), [[0, 5, -1], [5, 5, 2], [11, -12, 0], [7, 5, 5]]),
                        ((2, 3), [[1, 1], [-1, 4], [0, 1]]),
                        ((5,), [[4, 4, 0, -5], [2, 4, 4, 1]])):
        index = kael.tensor(rows, dtype=kael.int64).t()
        x = kael.randn(*shape, dtype=kael.float64)
        out.append([list(index.shape), index.is_contiguous()] + _gradient(lambda t: m.take(t, index), x))
    return out


# -- the declared domain (harness/domain.py): the statement's whole input space ------------------

from judge_domain import Domain  # noqa: E402  (the judge copies harness/domain.py beside this file)

DOMAIN = Domain("index-backward")
COMMON = ("layout contiguous", "layout transposed", "layout stepped", "layout expanded",
          "dtype float32", "dtype float64", "size 0", "size 1", "size n")
INDEX_CLASSES = ("index repeats", "index negative", "index empty", "index one value",
                 "index a stepped view")


def _index(d, count, n, negative=True, shape=None):
    """An int64 index of ``count`` positions (or of ``shape``) into ``n`` places: repeats, negative
    positions (when allowed), one value for all, empty; now and then a stepped view, or (of rank
    2) a transposed one, not contiguous across its dims (``.view(-1)`` cannot flatten it)."""
    kind = d.choice(("repeats", "spread", "one value") + (("negative",) if negative else ()))
    if count == 0:
        d.label("index empty")
        values = []
    elif kind == "one value":
        d.label("index one value")
        values = [d.integer(0, n - 1)] * count
    else:
        pool = [d.integer(0, n - 1) for _ in range(d.integer(1, 2))] if kind == "repeats" else range(n)
        values = [d.choice(list(pool)) for _ in range(count)]
        if kind == "negative":
            values = [v - n if d.chance(0.6) else v for v in values]
    if len(set(values)) < len(values):
        d.label("index repeats")
    if any(v < 0 for v in values):
        d.label("index negative")
    shape = tuple(shape) if shape is not None else (count,)
    if len(shape) == 2 and values and d.chance(0.3):
        d.label("index a transposed view")
        rows, cols = shape
        flipped = [[values[i * cols + j] for i in range(rows)] for j in range(cols)]
        index = kael.tensor(flipped, dtype=kael.int64).transpose(0, 1)
    elif d.chance(0.25) and values:
        d.label("index a stepped view")
        wide = [v for v in values for _ in (0, 1)]
        index = kael.tensor(wide, dtype=kael.int64).reshape(shape[:-1] + (2 * shape[-1],))[..., ::2] if shape else kael.tensor(values[0])
    else:
        index = kael.tensor(values, dtype=kael.int64).reshape(shape)
    d.inputs.append(f"index {index.tolist()}")
    return index


def _source(d, shape, requires_grad=True):
    return d.tensor(shape, d.dtype(), mix=d.choice(("ordinary", "zeros", "ties", "huge", "tiny")),
                    requires_grad=requires_grad)


@DOMAIN.case("scatter_add_rows", cases=120, classes=COMMON + INDEX_CLASSES[:1] + INDEX_CLASSES[2:] + (
    "rank 0", "rank 2"))
def scatter_add_rows_case(d, m):
    """scatter_add_rows(n, index, src): n from 1 to 4, index of k positions in [0, n) (repeats,
    empty), src [k, *rest] with rest of rank 0-2 in any layout."""
    n = d.integer(1, 4)
    rest = d.shape(rank=d.integer(0, 2))
    k = d.integer(0, 5)
    src = _source(d, (k,) + tuple(rest), requires_grad=False)  # a building block: no autograd
    index = _index(d, k, n, negative=False)
    d.inputs.append(f"n {n}")
    d.call("scatter_add_rows(n, index, src)", m.scatter_add_rows, n, index, src)


@DOMAIN.case("index_select", cases=200, classes=COMMON + INDEX_CLASSES + (
    "rank 1", "rank 4", "dim negative", "dim positive", "twice on one x"))
def index_select_case(d, m):
    """IndexSelect(x, dim, index): x of rank 1-4 in any layout, dim in [-ndim, ndim), index of
    0-5 positions in [-n, n); forward, backward through the engine and directly; a quarter of
    the cases select again from the same x along another dim."""
    x = _source(d, d.shape(rank=d.integer(1, 4)))
    for again in (False, True):
        dim = d.integer(-x.ndim, x.ndim - 1)
        d.label("dim negative" if dim < 0 else "dim positive")
        n = x.shape[dim]
        index = _index(d, 0 if n == 0 else d.integer(0, 5), max(n, 1))
        d.inputs.append(f"dim {dim}")
        d.function_steps("IndexSelect", m.IndexSelect, [x, dim, index])
        if again or not d.chance(0.25):
            break
        d.label("twice on one x")


@DOMAIN.case("take", cases=160, classes=COMMON + INDEX_CLASSES + ("rank 0", "rank 4",
                                                               "index rank 0", "index rank 2",
                                                               "index a transposed view"))
def take_case(d, m):
    """Take(x, index): x of rank 0-4 with at least one element, in any layout; index of rank 0-2
    (any shape, sizes 0 included; contiguous, stepped or transposed) of positions in
    [-numel, numel)."""
    shape = d.shape()
    if 0 in shape:
        shape = tuple(s or 1 for s in shape)
    x = _source(d, shape)
    ishape = d.shape(rank=d.integer(0, 2), max_numel=6)
    d.label(f"index rank {len(ishape)}")
    count = 1
    for s in ishape:
        count *= s
    index = _index(d, count, x.numel(), shape=ishape)
    d.function_steps("Take", m.Take, [x, index])


def test_domain_scatter_add_rows(m):
    """scatter_add_rows(n, index, src) on 120 generated cases over the statement's domain"""
    return DOMAIN.run(m, "scatter_add_rows")


def test_domain_index_select(m):
    """IndexSelect(x, dim, index) on 200 generated cases over the statement's domain"""
    return DOMAIN.run(m, "index_select")


def test_domain_take(m):
    """Take(x, index) on 160 generated cases over the statement's domain"""
    return DOMAIN.run(m, "take")
