"""Hidden tests of views: seeded random shapes, dims, dtypes and strides. Each case returns the
submission's gradient; the reference's run, in its own process, gives the expected one."""

import random

import kael

DTYPES = (kael.float32, kael.float64)


def _shape(rng, rank, lo=1, hi=4):
    return tuple(rng.randint(lo, hi) for _ in range(rank))


def _gradient(mine, x):
    """[your result, your gradient, its dtype]"""
    a = x.detach().requires_grad_()
    ya = mine(a)
    kael.manual_seed(99)
    ya.backward(kael.randn(*ya.shape, dtype=ya.dtype))
    return [ya.tolist(), a.grad.tolist(), a.grad.dtype.name]


def test_narrow_random(m):
    """12 random narrows: ranks 1 to 4, negative dims, float32 and float64"""
    rng = random.Random(1701)
    kael.manual_seed(1)
    out = []
    for _ in range(12):
        shape = _shape(rng, rng.randint(1, 4))
        dim = rng.randrange(-len(shape), len(shape))
        n = shape[dim]
        start = rng.randrange(n)
        length = rng.randint(1, n - start)
        x = kael.randn(*shape, dtype=rng.choice(DTYPES))
        out.append(_gradient(lambda t: m.narrow(t, dim, start, length), x))
    return out


def test_narrow_every_dim(m):
    """narrow along every dim of [-ndim, ndim) for ranks 1 to 4 (seeded sizes 2 to 4, so no two
    dims can be confused), float32 and float64"""
    rng = random.Random(1707)
    kael.manual_seed(2)
    out = []
    for rank in range(1, 5):
        for dim in range(-rank, rank):
            shape = _shape(rng, rank, lo=2)
            n = shape[dim]
            start = rng.randrange(n)
            length = rng.randint(1, n - start)
            x = kael.randn(*shape, dtype=rng.choice(DTYPES))
            out.append(_gradient(lambda t: m.narrow(t, dim, start, length), x))
    return out


def test_narrow_of_narrow_reaches_the_base(m):
    """narrow(narrow(x, 0, 1, 3), 1, 2, 2) of a [5, 6] x: both views pass the gradient on"""
    kael.manual_seed(2)
    x = kael.randn(5, 6)
    return _gradient(lambda t: m.narrow(m.narrow(t, 0, 1, 3), 1, 2, 2), x)


def test_narrow_of_a_transposed_tensor(m):
    """narrow of a non-contiguous tensor (your transpose of x), then backward"""
    kael.manual_seed(3)
    x = kael.randn(4, 3)
    return _gradient(lambda t: m.narrow(m.transpose(t, 0, 1), 1, 1, 2), x)


def test_transpose_random(m):
    """10 random transposes: ranks 2 to 4, any pair of dims (also negative, also equal)"""
    rng = random.Random(1702)
    kael.manual_seed(4)
    out = []
    for _ in range(10):
        shape = _shape(rng, rng.randint(2, 4))
        d0 = rng.randrange(-len(shape), len(shape))
        d1 = rng.randrange(-len(shape), len(shape))
        x = kael.randn(*shape, dtype=rng.choice(DTYPES))
        out.append(_gradient(lambda t: m.transpose(t, d0, d1), x))
    return out


def test_expand_random(m):
    """10 random expands: size-1 dims repeated, 0 to 2 new leading dims, -1 keeps a size"""
    rng = random.Random(1703)
    kael.manual_seed(5)
    out = []
    for _ in range(10):
        shape = tuple(rng.choice((1, 1, 2, 3)) for _ in range(rng.randint(1, 3)))
        lead = _shape(rng, rng.randint(0, 2), 1, 3)
        target = lead + tuple(rng.randint(2, 3) if s == 1 else rng.choice((s, -1)) for s in shape)
        x = kael.randn(*shape, dtype=rng.choice(DTYPES))
        out.append(_gradient(lambda t: m.expand(t, *target), x))
    return out


def test_expand_then_narrow_then_transpose(m):
    """a chain of three views of a [3, 1] x: expand to [2, 3, 4], narrow, transpose"""
    kael.manual_seed(6)
    x = kael.randn(3, 1, dtype=kael.float64)
    return _gradient(
        lambda t: m.transpose(m.narrow(m.expand(t, 2, 3, 4), 2, 1, 2), 0, 2),
        x,
    )


def test_strided_positions_random(m):
    """strided_positions for 8 random sizes, strides (0 included) and offsets"""
    rng = random.Random(1704)
    out = []
    for _ in range(8):
        size = _shape(rng, rng.randint(1, 3))
        stride = tuple(rng.randint(0, 3) for _ in size)
        out.append(m.strided_positions(size, stride, rng.randint(0, 2)))
    return out


def test_as_strided_random(m):
    """8 random strided views with overlaps, zero strides and offsets, of a [3, 4] or [12] x"""
    rng = random.Random(1705)
    kael.manual_seed(7)
    out = []
    for _ in range(8):
        size = _shape(rng, rng.randint(1, 3), 1, 3)
        stride = tuple(rng.randint(0, 2) for _ in size)
        span = sum((n - 1) * s for n, s in zip(size, stride))
        offset = rng.randint(0, 11 - span)
        x = kael.randn(*rng.choice(((3, 4), (12,))), dtype=rng.choice(DTYPES))
        out.append(_gradient(lambda t: m.as_strided(t, size, stride, offset), x))
    return out


def test_sliding_windows_of_a_signal(m):
    """as_strided(x, (7, 4), (1, 1)) of 10 samples: the windows of a 1-d convolution"""
    kael.manual_seed(8)
    x = kael.randn(10, dtype=kael.float64)
    return _gradient(lambda t: m.as_strided(t, (7, 4), (1, 1)), x)


def test_zero_stride_reads_one_element_many_times(m):
    """as_strided(x, (3, 5), (0, 0), 2): one element read 15 times gets 15 contributions"""
    x = kael.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    m.as_strided(x, (3, 5), (0, 0), 2).sum().backward()
    return x.grad.tolist()


# Finite float64 gradients outside float32's range or precision: large ones (1e39 and beyond
# overflow float32), tiny ones (1e-50 and below flush to 0 there) and ordinary ones float32 rounds
# (0.1, 1/3). Each gradient has one sign and one group, so a position's sum is the same (to an ulp)
# in any order, and every value is compared relative to its size (atol 0).
_WIDE = {
    "large": (1e300, 2.5e250, 1e39, 7.0e120),
    "tiny": (1e-300, 3.0e-200, 1e-50, 4.0e-39),
    "fine": (0.1, 1.0 / 3.0, 1.2345678901234567e-10, 123456.789),
    "all": (1e300, 1e-300, 1e39, 1e-50, 0.1, 2.5e250, 3.0e-200, 1.0 / 3.0),
}


def _wide_backward(view, x, group, sign=1.0):
    """view(x) of a float64 leaf x, backward with a gradient of ``group``'s values (times
    ``sign``), cycled: [x.grad, its dtype]"""
    a = x.detach().requires_grad_()
    y = view(a)
    values = _WIDE[group]
    g = [sign * values[i % len(values)] for i in range(y.numel())]
    y.backward(kael.tensor(g, dtype=kael.float64).reshape(tuple(y.shape)))
    return [a.grad.tolist(), a.grad.dtype.name]


def test_float64_gradients_keep_their_range(m):
    """float64 views whose incoming gradient holds large (1e39 to 1e300), tiny (1e-300 to 4e-39)
    or finely rounded (0.1, 1/3) finite values: as_strided with overlapping windows, a zero
    stride, an offset, of a contiguous and a transposed x; expand and narrow too. Each gradient
    is accurate relative to its size (rtol 1e-12, atol 0): computed in float64, not overflowed
    to inf, flushed to 0 or rounded to float32"""
    x = kael.tensor([0.5 * i for i in range(12)], dtype=kael.float64)
    xt = x.reshape(4, 3).transpose(0, 1)
    windows = lambda t: m.as_strided(t, (7, 4), (1, 1))  # noqa: E731
    return [
        _wide_backward(windows, x[:10], "large"),
        _wide_backward(windows, x[:10], "tiny", -1.0),
        _wide_backward(windows, x[:10], "fine"),
        _wide_backward(lambda t: m.as_strided(t, (2, 3), (0, 0), 5), x, "tiny"),
        _wide_backward(lambda t: m.as_strided(t, (2, 2, 2), (4, 1, 2), 1), xt, "large", -1.0),
        _wide_backward(lambda t: m.as_strided(t, (2, 2, 2), (4, 1, 2), 1), xt, "fine", -1.0),
        _wide_backward(lambda t: m.as_strided(t, (8,), (1,), 3), x, "all"),
        _wide_backward(lambda t: m.expand(t, 2, 3, 4), x[:3].reshape(3, 1), "tiny"),
        _wide_backward(lambda t: m.narrow(t, 1, 1, 2), xt, "all", -1.0),
    ]


test_float64_gradients_keep_their_range.rtol = 1e-12
test_float64_gradients_keep_their_range.atol = 0.0


def test_inplace_on_views_random(m):
    """in-place add_ on 6 random narrows under no_grad: the base changes and its version goes up"""
    rng = random.Random(1706)
    out = []
    for _ in range(6):
        shape = _shape(rng, rng.randint(1, 3))
        dim = rng.randrange(len(shape))
        start = rng.randrange(shape[dim])
        base = kael.zeros(*shape)
        with kael.no_grad():
            before = base._version
            m.narrow(base, dim, start, 1).add_(1.0)
        out.append([base.tolist(), base._version > before])
    return out


def test_view_output_keeps_its_node(m):
    """the node names of the four views: NarrowBackward, TransposeBackward, ExpandBackward, AsStridedBackward"""
    x = kael.ones(2, 2, requires_grad=True)
    ys = [m.narrow(x, 0, 0, 1), m.transpose(x, 0, 1), m.expand(x, 3, 2, 2), m.as_strided(x, (2,), (1,))]
    return [y.grad_fn.name() for y in ys]


# -- the declared domain (harness/domain.py): the statement's whole input space ------------------

from judge_domain import Domain  # noqa: E402  (the judge copies harness/domain.py beside this file)

DOMAIN = Domain("view-backward")
LAYOUT_CLASSES = ("layout contiguous", "layout transposed", "layout stepped", "layout expanded")
COMMON = LAYOUT_CLASSES + ("dtype float32", "dtype float64", "size 0", "size 1", "size n")


def _base(d, min_rank=0, max_rank=4):
    """x of rank min_rank..max_rank (sizes 0, 1 or n) in any layout, float32 or float64."""
    shape = d.shape(rank=d.integer(min_rank, max_rank))
    return d.tensor(shape, d.dtype(), mix=d.choice(("ordinary", "zeros", "ties", "huge", "tiny")),
                    requires_grad=True)


def _dim(d, rank):
    dim = d.integer(-rank, rank - 1)
    d.label("dim negative" if dim < 0 else "dim positive")
    return dim


def _write_through(m, x, dim, start, length):
    """narrow(base, ...).add_(1) under no_grad: the base's values afterwards, and whether its
    version went up (a view shares its base's memory and version counter)."""
    base = x.detach().clone()
    before = base._version
    with kael.no_grad():
        m.Narrow.apply(base, dim, start, length).add_(1.0)
    return [base.tolist(), base._version > before]


@DOMAIN.case("narrow", cases=200, classes=COMMON + ("rank 1", "rank 4", "dim negative",
                                                   "dim positive", "length 0", "written through"))
def narrow_case(d, m):
    """Narrow(x, dim, start, length), 0 <= start <= start + length <= x.shape[dim]: forward,
    backward through the engine and directly; a third of the cases also write through the view."""
    x = _base(d, min_rank=1)
    dim = _dim(d, x.ndim)
    n = x.shape[dim]
    start = d.integer(0, n)
    length = d.integer(0, n - start)
    if length == 0:
        d.label("length 0")
    d.inputs.append(f"dim {dim}, start {start}, length {length}")
    d.function_steps("Narrow", m.Narrow, [x, dim, start, length])
    if d.chance(0.35):
        d.label("written through")
        d.call("Narrow(...).add_(1) under no_grad", _write_through, m, x, dim, start, length)


@DOMAIN.case("transpose", cases=120, classes=COMMON + ("rank 1", "rank 4", "dim negative",
                                                      "dim positive", "same dim"))
def transpose_case(d, m):
    """Transpose(x, dim0, dim1) of rank 1-4, dims in [-ndim, ndim), equal dims too."""
    x = _base(d, min_rank=1)
    dim0, dim1 = _dim(d, x.ndim), _dim(d, x.ndim)
    if dim0 % x.ndim == dim1 % x.ndim:
        d.label("same dim")
    d.inputs.append(f"dims {dim0}, {dim1}")
    d.function_steps("Transpose", m.Transpose, [x, dim0, dim1])


def _expanded_shape(d, shape):
    """A shape x can be expanded to: 0-2 new leading dims, size-1 dims repeated (to 0, 1 or n),
    and -1 now and then to keep a size."""
    out = [d.size(3) for _ in range(d.integer(0, 2))]
    if out:
        d.label("new leading dims")
    for s in shape:
        if s == 1 and d.chance(0.6):
            d.label("size-1 dim repeated")
            out.append(d.integer(0, 3))
        else:
            out.append(-1 if d.chance(0.3) else s)
    if -1 in out[len(out) - len(shape):]:
        d.label("-1 keeps a size")
    return tuple(out)


@DOMAIN.case("expand", cases=160, classes=COMMON + ("rank 0", "rank 3", "new leading dims",
                                                   "size-1 dim repeated", "-1 keeps a size"))
def expand_case(d, m):
    """Expand(x, shape) of rank 0-3: new leading dims, repeated size-1 dims, -1 sizes."""
    x = _base(d, max_rank=3)
    shape = _expanded_shape(d, tuple(x.shape))
    d.inputs.append(f"shape {shape}")
    d.function_steps("Expand", m.Expand, [x, shape])


def _strided_args(d, numel):
    """size (rank 0-3, sizes 0-4), stride (0-3 each) and an offset that keeps every position
    inside the ``numel`` elements."""
    size = tuple(d.integer(0, 4) if d.chance(0.8) else 0 for _ in range(d.integer(0, 3)))
    stride = tuple(d.integer(0, 3) for _ in size)
    if 0 in stride and any(s > 1 for s in size):
        d.label("stride 0")
    if any(st < n and st > 0 for st, n in zip(stride, size[1:])):
        d.label("overlapping windows")
    span = sum((n - 1) * s for n, s in zip(size, stride) if n > 0)
    empty = 0 in size
    while not empty and span > numel - 1 and stride and max(stride) > 0:
        stride = tuple(max(0, s - 1) for s in stride)
        span = sum((n - 1) * s for n, s in zip(size, stride) if n > 0)
    if not empty and span > numel - 1:
        return None
    offset = d.integer(0, max(0, numel - 1 - span)) if numel else 0
    if offset:
        d.label("offset")
    return size, stride, offset


@DOMAIN.case("as_strided", cases=200, classes=COMMON + ("rank 0", "rank 4", "stride 0",
                                                       "overlapping windows", "offset"))
def as_strided_case(d, m):
    """AsStrided(x, size, stride, offset) over x's elements in row-major order (x of rank 0-4,
    any layout); strided_positions(size, stride, offset) itself as well."""
    x = _base(d)
    args = _strided_args(d, x.numel())
    if args is None or (x.numel() == 0 and 0 not in args[0] and args[0]):
        x = d.tensor((3, 4), x.dtype, mix="ordinary", requires_grad=True)
        args = _strided_args(d, 12) or ((2,), (1,), 0)
    size, stride, offset = args
    d.inputs.append(f"size {size}, stride {stride}, offset {offset}")
    d.call("strided_positions(size, stride, offset)", m.strided_positions, size, stride, offset)
    d.function_steps("AsStrided", m.AsStrided, [x, size, stride, offset])


def test_domain_narrow(m):
    """Narrow(x, dim, start, length) on 200 generated cases over the statement's domain"""
    return DOMAIN.run(m, "narrow")


def test_domain_transpose(m):
    """Transpose(x, dim0, dim1) on 120 generated cases over the statement's domain"""
    return DOMAIN.run(m, "transpose")


def test_domain_expand(m):
    """Expand(x, shape) on 160 generated cases over the statement's domain"""
    return DOMAIN.run(m, "expand")


def test_domain_as_strided(m):
    """AsStrided(x, size, stride, offset) and strided_positions on 200 generated cases"""
    return DOMAIN.run(m, "as_strided")
