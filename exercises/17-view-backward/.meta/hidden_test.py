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
