"""Every op: values against hand-computed numbers, a cross-check against numpy when it imports,
and a numerical gradient check (``kael.autograd.gradcheck``, float64) for every differentiable
op, with broadcast operands and strided (non-contiguous) leaves among the inputs.

Sizes stay small: the pure-Python backend and Pyodide run this file too.
"""

import math

import pytest

import kael
import kael.nn.functional as F
from kael.autograd import gradcheck

F64 = kael.float64


def close(got, want, tol=1e-6):
    """Nested lists (or numbers) equal to within ``tol`` (absolute and relative)."""
    if isinstance(want, (list, tuple)):
        assert isinstance(got, list) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            close(g, w, tol)
        return
    if isinstance(want, float) and math.isnan(want):
        assert math.isnan(got), (got, want)
        return
    assert abs(got - want) <= tol * (1 + abs(want)), (got, want)


def t64(data):
    return kael.tensor(data, dtype=F64)


# -- values -----------------------------------------------------------------------------------------

A = [[1.0, -2.0, 3.0], [-0.5, 0.25, 4.0]]
B = [[2.0, 4.0, -1.0], [0.5, 2.0, 8.0]]


def elementwise(fn, *rows):
    return [[fn(*vals) for vals in zip(*cols)] for cols in zip(*rows)]


def test_binary_arithmetic_values():
    a, b = t64(A), t64(B)
    close((a + b).tolist(), elementwise(lambda x, y: x + y, A, B))
    close((a - b).tolist(), elementwise(lambda x, y: x - y, A, B))
    close((a * b).tolist(), elementwise(lambda x, y: x * y, A, B))
    close((a / b).tolist(), [[0.5, -0.5, -3.0], [-1.0, 0.125, 0.5]])
    close(kael.add(a, 1).tolist(), [[2.0, -1.0, 4.0], [0.5, 1.25, 5.0]])
    close(kael.sub(1, a).tolist(), [[0.0, 3.0, -2.0], [1.5, 0.75, -3.0]])
    close(kael.mul(a, 2).tolist(), [[2.0, -4.0, 6.0], [-1.0, 0.5, 8.0]])
    close(kael.div(a, 4).tolist(), [[0.25, -0.5, 0.75], [-0.125, 0.0625, 1.0]])
    close((-a).tolist(), [[-1.0, 2.0, -3.0], [0.5, -0.25, -4.0]])
    close(kael.neg(a).tolist(), (-a).tolist())


def test_broadcast_values():
    m = t64([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    close((m + t64([10.0, 20.0, 30.0])).tolist(), [[11.0, 22.0, 33.0], [14.0, 25.0, 36.0]])
    close((m * t64([[2.0], [-1.0]])).tolist(), [[2.0, 4.0, 6.0], [-4.0, -5.0, -6.0]])
    close((t64([[1.0], [2.0]]) - t64([1.0, 2.0, 3.0])).tolist(), [[0.0, -1.0, -2.0], [1.0, 0.0, -1.0]])
    assert (kael.zeros(2, 1, 3) + kael.zeros(4, 1)).shape == (2, 4, 3)


def test_pow_values():
    close((t64([1.0, 2.0, 3.0]) ** 2).tolist(), [1.0, 4.0, 9.0])
    close((t64([4.0, 9.0]) ** 0.5).tolist(), [2.0, 3.0])
    close((2 ** t64([0.0, 1.0, 3.0])).tolist(), [1.0, 2.0, 8.0])
    close(kael.pow(t64([2.0, 3.0]), t64([3.0, 2.0])).tolist(), [8.0, 9.0])
    assert (kael.tensor([2, 3]) ** 2).tolist() == [4, 9]
    with pytest.raises(RuntimeError, match="negative integer powers"):
        kael.tensor([2]) ** -1


def test_unary_values():
    xs = [-1.5, -0.25, 0.0, 0.5, 2.0]
    x = t64(xs)
    close(kael.exp(x).tolist(), [math.exp(v) for v in xs], 1e-12)
    close(kael.sin(x).tolist(), [math.sin(v) for v in xs], 1e-12)
    close(kael.cos(x).tolist(), [math.cos(v) for v in xs], 1e-12)
    close(kael.tanh(x).tolist(), [math.tanh(v) for v in xs], 1e-12)
    close(kael.sigmoid(x).tolist(), [1 / (1 + math.exp(-v)) for v in xs], 1e-12)
    close(kael.abs(x).tolist(), [1.5, 0.25, 0.0, 0.5, 2.0])
    close(kael.relu(x).tolist(), [0.0, 0.0, 0.0, 0.5, 2.0])
    close(kael.silu(x).tolist(), [v / (1 + math.exp(-v)) for v in xs], 1e-12)
    close(kael.gelu(x).tolist(), [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in xs], 1e-12)
    tanh_gelu = [0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3))) for v in xs]
    close(kael.gelu(x, approximate="tanh").tolist(), tanh_gelu, 1e-12)
    close(F.gelu(t64([1.0])).tolist(), [0.8413447460685429], 1e-12)
    close(F.gelu(t64([1.0]), approximate="tanh").tolist(), [0.8411919906082768], 1e-12)
    p = t64([0.25, 1.0, 4.0])
    close(kael.log(p).tolist(), [math.log(0.25), 0.0, math.log(4.0)], 1e-12)
    close(kael.sqrt(p).tolist(), [0.5, 1.0, 2.0])
    close(x.square().tolist(), [v * v for v in xs])
    close(x.sign().tolist(), [-1.0, -1.0, 0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="approximate"):
        kael.gelu(x, approximate="fast")


def test_unary_ops_on_integers_give_float():
    i = kael.tensor([0, 1])
    assert kael.exp(i).dtype is kael.float32
    close(kael.exp(i).tolist(), [1.0, math.e])
    assert kael.sigmoid(i).dtype is kael.float32
    assert kael.abs(kael.tensor([-3])).tolist() == [3]
    assert kael.relu(kael.tensor([-3, 3])).tolist() == [0, 3]


def test_float32_results_are_rounded_to_single_precision():
    x = kael.tensor([0.1, 0.2, 0.7])
    y = (x * 3 + 1).exp()
    for v, e in zip(y.tolist(), [math.exp(1.3000000447034836), math.exp(1.600000023841858), math.exp(3.0999999046325684)]):
        assert abs(v - e) <= 1e-6 * e
    import struct

    for v in y.tolist():
        assert struct.unpack("f", struct.pack("f", v))[0] == v


def test_clamp_maximum_minimum_where_values():
    x = t64([-2.0, -0.5, 0.5, 2.0])
    close(x.clamp(-1.0, 1.0).tolist(), [-1.0, -0.5, 0.5, 1.0])
    close(x.clamp(min=0.0).tolist(), [0.0, 0.0, 0.5, 2.0])
    close(kael.clamp(x, max=0.0).tolist(), [-2.0, -0.5, 0.0, 0.0])
    with pytest.raises(RuntimeError, match="at least one of 'min' or 'max'"):
        x.clamp()
    assert kael.tensor([1, 5]).clamp(2, 4).tolist() == [2, 4]
    wide = kael.tensor([1, 5]).clamp(2.5, 4)  # a float bound promotes, as in PyTorch
    assert wide.dtype is kael.float32 and wide.tolist() == [2.5, 4.0]
    c = t64(0.5).clamp(0.0, 0.2)  # 0-d results stay tensors one can write to
    c.add_(1.0)
    assert c.item() == 1.2 and c.shape == ()
    y = t64([0.0, -1.0, 1.0, 3.0])
    close(kael.maximum(x, y).tolist(), [0.0, -0.5, 1.0, 3.0])
    close(kael.minimum(x, y).tolist(), [-2.0, -1.0, 0.5, 2.0])
    close(kael.maximum(x, 0.0).tolist(), [0.0, 0.0, 0.5, 2.0])
    close(kael.where(x > 0, x, y).tolist(), [0.0, -1.0, 0.5, 2.0])
    close(kael.where(x > 0, x, 0.0).tolist(), [0.0, 0.0, 0.5, 2.0])
    close(kael.where(t64([[1.0], [0.0]]) > 0, t64([1.0, 2.0]), t64([[5.0], [6.0]])).tolist(),
          [[1.0, 2.0], [6.0, 6.0]])
    close(x.where(x < 0, y).tolist(), [-2.0, -0.5, 1.0, 3.0])


def test_reduction_values():
    m = t64([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    assert m.sum().item() == 21.0 and m.sum().shape == ()
    close(m.sum(0).tolist(), [5.0, 7.0, 9.0])
    close(m.sum(1, keepdim=True).tolist(), [[9.0], [12.0]])
    close(m.sum((0, 1)).item(), 21.0)
    close(kael.sum(m, -1).tolist(), [9.0, 12.0])
    close(m.mean().item(), 3.5)
    close(m.mean(0).tolist(), [2.5, 3.5, 4.5])
    close(m.mean(1, keepdim=True).tolist(), [[3.0], [4.0]])
    assert m.max().item() == 6.0 and m.min().item() == 1.0
    values, indices = m.max(1)
    close(values.tolist(), [5.0, 6.0])
    assert indices.tolist() == [1, 2] and indices.dtype is kael.int64
    r = m.min(dim=0, keepdim=True)
    close(r.values.tolist(), [[1.0, 2.0, 3.0]])
    assert r.indices.tolist() == [[0, 1, 0]]
    assert kael.max(m, 0).indices.tolist() == [1, 0, 1]
    assert m.argmax().item() == 5 and m.argmax(1).tolist() == [1, 2] and m.argmin(0).tolist() == [0, 1, 0]
    close(m.amax(0).tolist(), [4.0, 5.0, 6.0])
    close(m.amin((0, 1)).item(), 1.0)
    close(kael.max(m, t64([3.0, 3.0, 3.0])).tolist(), [[3.0, 5.0, 3.0], [4.0, 3.0, 6.0]])
    assert kael.tensor([1, 2, 3]).sum().item() == 6 and kael.tensor([1, 2]).sum().dtype is kael.int64
    assert kael.tensor([True, True, False]).sum().item() == 2
    close(m.var().item(), 3.5)
    close(m.std(1, unbiased=False).tolist(), [math.sqrt(8 / 3), math.sqrt(8 / 3)])
    with pytest.raises(RuntimeError, match="Got: int64"):
        kael.tensor([1, 2]).mean()


def test_logsumexp_softmax_log_softmax_values():
    m = t64([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
    lse = [math.log(math.exp(1) + math.exp(2) + math.exp(3)), math.log(3.0)]
    close(m.logsumexp(1).tolist(), lse, 1e-12)
    close(kael.logsumexp(m, 1, keepdim=True).tolist(), [[lse[0]], [lse[1]]], 1e-12)
    close(m.logsumexp((0, 1)).item(), math.log(sum(math.exp(v) for v in (1, 2, 3, 0, 0, 0))), 1e-12)
    sm = m.softmax(1).tolist()
    close(sm, [[math.exp(v - lse[0]) for v in (1, 2, 3)], [1 / 3] * 3], 1e-12)
    close(kael.softmax(m, 0).tolist(), [[1 / (1 + math.exp(-1)), 1 / (1 + math.exp(-2)), 1 / (1 + math.exp(-3))],
                                       [1 / (1 + math.exp(1)), 1 / (1 + math.exp(2)), 1 / (1 + math.exp(3))]], 1e-12)
    close(m.log_softmax(-1).tolist(), [[v - lse[0] for v in (1, 2, 3)], [-math.log(3)] * 3], 1e-12)
    # stable for large inputs
    big = t64([[1000.0, 1000.0]])
    close(big.softmax(1).tolist(), [[0.5, 0.5]])
    close(big.logsumexp(1).tolist(), [1000.0 + math.log(2)], 1e-12)
    close(F.log_softmax(t64([[-1000.0, 0.0]]), 1).tolist(), [[-1000.0, 0.0]])


def test_matmul_values_in_every_form():
    m = t64([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # [3, 2]
    v2 = t64([1.0, -1.0])
    v3 = t64([1.0, 0.0, 2.0])
    close((v2 @ v2).item(), 2.0)
    assert (v2 @ v2).shape == ()
    close((m @ v2).tolist(), [-1.0, -1.0, -1.0])
    close((v3 @ m).tolist(), [11.0, 14.0])
    close((m @ t64([[1.0, 0.0], [0.0, 2.0]])).tolist(), [[1.0, 4.0], [3.0, 8.0], [5.0, 12.0]])
    batch = kael.stack([m, 2 * m])  # [2, 3, 2]
    close((batch @ v2).tolist(), [[-1.0, -1.0, -1.0], [-2.0, -2.0, -2.0]])
    close((v3 @ batch).tolist(), [[11.0, 14.0], [22.0, 28.0]])
    bb = batch @ m.T  # [2, 3, 3]
    close(bb[1, 0].tolist(), [10.0, 22.0, 34.0])
    wide = kael.ones(4, 1, 2, 3, dtype=F64) @ kael.ones(5, 3, 1, dtype=F64)
    assert wide.shape == (4, 5, 2, 1)
    close(wide[3, 4].tolist(), [[3.0], [3.0]])
    close(kael.mm(m.T, m).tolist(), [[35.0, 44.0], [44.0, 56.0]])
    close(kael.bmm(batch.mT, batch)[1].tolist(), [[140.0, 176.0], [176.0, 224.0]])
    with pytest.raises((RuntimeError, ValueError), match="matmul"):
        kael.tensor(1.0) @ m


def test_linear_values():
    x = t64([[1.0, 2.0]])
    w = t64([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    b = t64([0.5, -0.5, 0.0])
    close(F.linear(x, w, b).tolist(), [[1.5, 1.5, 3.0]])
    close(F.linear(x, w).tolist(), [[1.0, 2.0, 3.0]])
    close(kael.linear(t64([1.0, 2.0]), w, b).tolist(), [1.5, 1.5, 3.0])
    assert F.linear(kael.zeros(4, 5, 2, dtype=F64), w).shape == (4, 5, 3)
    with pytest.raises(RuntimeError, match=r"input of shape \[1, 3\] does not match weight of shape \[3, 2\]"):
        F.linear(kael.zeros(1, 3, dtype=F64), w)


def test_shape_op_values():
    x = kael.arange(6.0).reshape(2, 3)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert kael.reshape(x, (3, 2)).tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert kael.view(x, -1).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert kael.transpose(x, 0, 1).tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert kael.permute(x.unsqueeze(0), 2, 0, 1).shape == (3, 1, 2)
    assert kael.unsqueeze(x, 1).shape == (2, 1, 3) and kael.squeeze(x.unsqueeze(1)).shape == (2, 3)
    assert kael.flatten(x).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert kael.expand(kael.tensor([[1.0], [2.0]]), 2, 2).tolist() == [[1.0, 1.0], [2.0, 2.0]]
    assert kael.cat([x, x * 10], 0).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0],
                                                 [0.0, 10.0, 20.0], [30.0, 40.0, 50.0]]
    assert kael.cat([x, kael.ones(2, 1)], dim=1).tolist() == [[0.0, 1.0, 2.0, 1.0], [3.0, 4.0, 5.0, 1.0]]
    assert kael.cat([kael.tensor([1]), kael.tensor([2.5])]).dtype is kael.float32
    s = kael.stack([kael.tensor([1.0, 2.0]), kael.tensor([3.0, 4.0])], dim=1)
    assert s.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert kael.stack([x, x], -1).shape == (2, 3, 2)


def test_indexing_values():
    x = kael.arange(12.0).reshape(3, 4)
    assert x[1, 2].item() == 6.0
    assert x[-1].tolist() == [8.0, 9.0, 10.0, 11.0]
    assert x[:, ::3].tolist() == [[0.0, 3.0], [4.0, 7.0], [8.0, 11.0]]
    assert x[[0, 0, 2]].tolist() == [[0.0, 1.0, 2.0, 3.0], [0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]]
    assert x[[2, 1], [0, 3]].tolist() == [8.0, 7.0]
    assert x[1:, [0, 0]].tolist() == [[4.0, 4.0], [8.0, 8.0]]
    assert x[x.sum(1) > 10].tolist() == [[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    assert x[None, 1, None].shape == (1, 1, 4)
    assert x[kael.tensor([[0, 1], [2, 2]])].shape == (2, 2, 4)


def test_loss_values():
    p = t64([[1.0, 2.0], [3.0, 5.0]])
    y = t64([[1.0, 0.0], [1.0, 1.0]])
    close(F.mse_loss(p, y).item(), (0 + 4 + 4 + 16) / 4)
    close(F.mse_loss(p, y, reduction="sum").item(), 24.0)
    close(F.mse_loss(p, y, reduction="none").tolist(), [[0.0, 4.0], [4.0, 16.0]])
    logits = t64([[2.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    target = kael.tensor([0, 2])
    lse0 = math.log(math.exp(2) + math.exp(1) + 1)
    per = [lse0 - 2.0, math.log(3.0)]
    close(F.cross_entropy(logits, target).item(), sum(per) / 2, 1e-12)
    close(F.cross_entropy(logits, target, reduction="none").tolist(), per, 1e-12)
    close(F.cross_entropy(logits, target, reduction="sum").item(), sum(per), 1e-12)
    close(F.cross_entropy(logits, kael.tensor([0, -100])).item(), per[0], 1e-12)
    close(F.cross_entropy(logits, kael.tensor([0, 2]), ignore_index=2).item(), per[0], 1e-12)
    probs = t64([[1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])
    close(F.cross_entropy(logits, probs).item(), (per[0] + math.log(3.0)) / 2, 1e-12)
    close(F.cross_entropy(t64([2.0, 1.0, 0.0]), kael.tensor(0)).item(), per[0], 1e-12)
    logp = F.log_softmax(logits, 1)
    close(F.nll_loss(logp, target).item(), sum(per) / 2, 1e-12)
    close(F.nll_loss(t64([[-1.0, -2.0], [-3.0, -4.0]]), kael.tensor([1, 0])).item(), 2.5)
    x = t64([-1.0, 0.0, 2.0])
    t = t64([0.0, 1.0, 1.0])
    bce = [math.log(1 + math.exp(-1.0)) + 0.0, math.log(2.0), math.log(1 + math.exp(-2.0))]
    close(F.binary_cross_entropy_with_logits(x, t, reduction="none").tolist(), bce, 1e-12)
    close(F.binary_cross_entropy_with_logits(x, t).item(), sum(bce) / 3, 1e-12)
    close(F.binary_cross_entropy_with_logits(t64([100.0, -100.0]), t64([0.0, 1.0]), reduction="sum").item(),
          200.0, 1e-12)
    with pytest.raises(IndexError, match="Target 3 is out of bounds for 3 classes"):
        F.cross_entropy(logits, kael.tensor([0, 3]))
    with pytest.warns(UserWarning, match=r"target size \(\[2\]\) that is different to the input size \(\[2, 2\]\)"):
        F.mse_loss(p, t64([1.0, 2.0]))  # broadcasts, as PyTorch does
    with pytest.raises(RuntimeError, match="cannot be broadcast"), pytest.warns(UserWarning):
        F.mse_loss(p, t64([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.mse_loss(p, y, reduction="avg")


def test_logical_ops_true_divide_concat_msort_allclose_values():
    a, b = kael.tensor([True, True, False, False]), kael.tensor([True, False, True, False])
    assert kael.logical_and(a, b).tolist() == [True, False, False, False]
    assert kael.logical_or(a, b).tolist() == [True, True, True, False]
    assert kael.logical_xor(a, b).tolist() == [False, True, True, False]
    assert kael.logical_not(a).tolist() == [False, False, True, True] == a.logical_not().tolist()
    assert a.logical_and(b).tolist() == [True, False, False, False]
    assert kael.true_divide(kael.tensor([3, 1]), 2).tolist() == [1.5, 0.5]
    assert kael.concat([kael.tensor([1.0]), kael.tensor([2.0, 3.0])]).tolist() == [1.0, 2.0, 3.0]
    assert kael.msort(t64([[3.0, 1.0], [1.0, 2.0], [2.0, 0.0]])).tolist() == [[1.0, 0.0], [2.0, 1.0], [3.0, 2.0]]
    assert kael.allclose(t64([1.0, 2.0]), t64([1.0, 2.0 + 1e-9])) and not kael.allclose(t64([1.0]), t64([1.1]))


def test_multinomial_draws_only_where_the_weight_is_not_zero():
    g = kael.Generator(0)
    draws = kael.multinomial(kael.tensor([0.0, 1.0, 0.0, 3.0]), 50, replacement=True, generator=g)
    assert draws.dtype is kael.int64 and draws.shape == (50,) and set(draws.tolist()) <= {1, 3}
    assert sorted(kael.tensor([1.0, 0.0, 2.0]).multinomial(2, generator=g).tolist()) == [0, 2]


# -- numpy cross-check -------------------------------------------------------------------------------

UNARY_NP = ["exp", "log", "sqrt", "abs", "sin", "cos", "tanh", "neg", "relu", "sigmoid", "silu"]


def _np_unary(np, name, a):
    table = {
        "exp": np.exp, "log": np.log, "sqrt": np.sqrt, "abs": np.abs, "sin": np.sin, "cos": np.cos,
        "tanh": np.tanh, "neg": np.negative, "relu": lambda v: np.maximum(v, 0),
        "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "silu": lambda v: v / (1 + np.exp(-v)),
    }
    return table[name](a)


@pytest.mark.parametrize("dtype", [kael.float32, kael.float64], ids=["float32", "float64"])
def test_ops_match_numpy(dtype):
    np = pytest.importorskip("numpy")
    tol = 1e-5 if dtype is kael.float32 else 1e-12
    npd = np.float32 if dtype is kael.float32 else np.float64
    g = kael.Generator(3)
    a = kael.randn(3, 4, dtype=dtype, generator=g)
    b = kael.randn(4, dtype=dtype, generator=g)
    pos = kael.rand(3, 4, dtype=dtype, generator=g) + 0.5
    an, bn, pn = (np.array(t.tolist(), dtype=npd) for t in (a, b, pos))

    def check(got, want):
        assert got.dtype is dtype, got.dtype
        np.testing.assert_allclose(np.array(got.tolist(), dtype=np.float64),
                                   np.asarray(want, dtype=np.float64), rtol=tol, atol=tol)

    for name in UNARY_NP:
        arg, argn = (pos, pn) if name in ("log", "sqrt") else (a, an)
        check(getattr(kael, name)(arg), _np_unary(np, name, argn))
    check(a + b, an + bn)
    check(a - b, an - bn)
    check(a * b, an * bn)
    check(a / pos, an / pn)
    check(pos ** b, pn ** bn)
    check(kael.maximum(a, b), np.maximum(an, bn))
    check(kael.minimum(a, b), np.minimum(an, bn))
    check(kael.where(a > b, a, b), np.where(an > bn, an, bn))
    check(a.clamp(-0.5, 0.5), np.clip(an, -0.5, 0.5))
    check(a.sum(), an.sum())
    check(a.sum(0), an.sum(0))
    check(a.mean(1, keepdim=True), an.mean(1, keepdims=True))
    check(a.amax(1), an.max(1))
    check(a.max(0).values, an.max(0))
    assert a.max(0).indices.tolist() == an.argmax(0).tolist()
    check(a.min(1).values, an.min(1))
    check(a.logsumexp(1), np.log(np.exp(an).sum(1)))
    e = np.exp(an - an.max(1, keepdims=True))
    check(a.softmax(1), e / e.sum(1, keepdims=True))
    check(a.log_softmax(1), np.log(e / e.sum(1, keepdims=True)))
    c = kael.randn(2, 4, 5, dtype=dtype, generator=g)
    cn = np.array(c.tolist(), dtype=npd)
    check(a @ c, an @ cn)
    check(b @ c, bn @ cn)
    check(c.mT @ b, cn.transpose(0, 2, 1) @ bn)
    check(a.T, an.T)
    check(c.permute(2, 0, 1), cn.transpose(2, 0, 1))
    check(c[:, 1:, ::2], cn[:, 1:, ::2])
    check(c[[1, 0, 1], :, [4, 0, 0]], cn[[1, 0, 1], :, [4, 0, 0]])
    check(kael.cat([a, a], 1), np.concatenate([an, an], 1))
    check(kael.stack([a, a], 2), np.stack([an, an], 2))
    check(a.var(1), an.var(1, ddof=1))


# -- gradcheck for every differentiable op ------------------------------------------------------------
#
# Input specs: R(*shape) standard normal; P(*shape) positive (|x| + 0.5); S(*shape) a strided,
# non-contiguous leaf (the transpose of a contiguous tensor); K(fn) a constant (requires no grad).


class R:
    kind = "normal"

    def __init__(self, *shape):
        self.shape = shape

    def make(self, g):
        return self.values(g).requires_grad_()

    def values(self, g):
        return kael.randn(*self.shape, dtype=F64, generator=g)


class P(R):
    def values(self, g):
        return kael.randn(*self.shape, dtype=F64, generator=g).abs() + 0.5


class S(R):
    """A strided leaf: the transpose of a contiguous tensor, detached, then requiring grad."""

    def make(self, g):
        t = kael.randn(*reversed(self.shape), dtype=F64, generator=g).T.detach().requires_grad_()
        assert not t.is_contiguous() and t.shape == self.shape and t.is_leaf
        return t


class K:
    def __init__(self, fn):
        self.fn = fn

    def make(self, g):
        return self.fn()


def mask34():
    return kael.tensor([[True, False, True, False], [False, False, True, True], [True, True, False, False]])


GRADCHECK = [
    # elementwise binary, with broadcasting, scalars, 0-d and strided operands
    ("add", lambda a, b: a + b, [R(3, 4), R(3, 4)]),
    ("add broadcast row", lambda a, b: kael.add(a, b), [R(3, 4), R(4)]),
    ("add broadcast both", lambda a, b: a + b, [R(3, 1), R(1, 4)]),
    ("add strided", lambda a, b: a + b, [S(3, 4), R(3, 4)]),
    ("add scalar", lambda a: a + 2.0, [R(3)]),
    ("add constant", lambda a, c: a + c, [R(2, 3), K(lambda: kael.ones(2, 3, dtype=F64))]),
    ("sub", lambda a, b: a - b, [R(3, 4), R(3, 4)]),
    ("sub broadcast", lambda a, b: kael.sub(a, b), [R(2, 1, 3), S(4, 3)]),
    ("rsub", lambda a: 1.0 - a, [R(3)]),
    ("mul", lambda a, b: a * b, [R(3, 4), R(3, 4)]),
    ("mul broadcast", lambda a, b: a * b, [S(3, 4), R(4)]),
    ("mul 0-d", lambda a, b: a * b, [R(3, 4), R()]),
    ("mul same input", lambda a: a * a, [R(3)]),
    ("div", lambda a, b: a / b, [R(3, 4), P(3, 4)]),
    ("div broadcast", lambda a, b: kael.div(a, b), [R(3, 4), P(3, 1)]),
    ("rdiv", lambda b: 2.0 / b, [P(2, 3)]),
    ("neg", lambda a: -a, [S(3, 2)]),
    ("pow tensor", lambda a, b: a ** b, [P(3, 4), R(4)]),
    ("pow scalar exponent", lambda a: a ** 3, [R(3, 2)]),
    ("pow fractional", lambda a: kael.pow(a, 0.5), [P(4)]),
    ("rpow", lambda b: 2.0 ** b, [R(3)]),
    ("maximum", lambda a, b: kael.maximum(a, b), [R(3, 4), R(4)]),
    ("minimum", lambda a, b: kael.minimum(a, b), [S(3, 4), R(3, 1)]),
    ("maximum scalar", lambda a: kael.maximum(a, 0.1), [R(5)]),
    ("where", lambda a, b: kael.where(a > 0, a, b), [R(3, 4), R(4)]),
    ("where constant cond", lambda a, b: kael.where(mask34(), a, b), [S(3, 4), R(3, 1)]),
    ("where scalar", lambda a: kael.where(a < 0, 0.0, a), [R(6)]),
    # unary
    ("exp", kael.exp, [R(3, 4)]),
    ("exp strided", lambda a: a.exp(), [S(3, 2)]),
    ("log", kael.log, [P(3, 4)]),
    ("log strided", lambda a: a.log(), [S(2, 3)]),
    ("sqrt", kael.sqrt, [P(3, 4)]),
    ("abs", kael.abs, [R(3, 4)]),
    ("sin", kael.sin, [S(3, 4)]),
    ("cos", kael.cos, [R(3, 4)]),
    ("tanh", kael.tanh, [R(3, 4)]),
    ("sigmoid", kael.sigmoid, [S(3, 4)]),
    ("relu", kael.relu, [R(3, 4)]),
    ("silu", kael.silu, [R(3, 4)]),
    ("silu strided", F.silu, [S(2, 3)]),
    ("gelu exact", kael.gelu, [R(3, 4)]),
    ("gelu tanh", lambda a: kael.gelu(a, approximate="tanh"), [S(3, 4)]),
    ("square", lambda a: a.square(), [R(3)]),
    ("clamp both", lambda a: a.clamp(-0.5, 0.5), [R(3, 4)]),
    ("clamp min", lambda a: kael.clamp(a, min=0.0), [S(3, 4)]),
    ("clamp max", lambda a: a.clamp(max=0.2), [R(3, 4)]),
    # reductions
    ("sum", lambda a: a.sum(), [R(3, 4)]),
    ("sum dim", lambda a: kael.sum(a, 1), [S(3, 4)]),
    ("sum dims keepdim", lambda a: a.sum((0, 2), keepdim=True), [R(2, 3, 2)]),
    ("sum negative dim", lambda a: a.sum(-1), [R(2, 3)]),
    ("mean", lambda a: a.mean(), [R(3, 4)]),
    ("mean dim keepdim", lambda a: kael.mean(a, 0, keepdim=True), [S(3, 4)]),
    ("var", lambda a: a.var(1), [R(3, 4)]),
    ("max", lambda a: a.max(), [R(3, 4)]),
    ("min", lambda a: kael.min(a), [S(3, 4)]),
    ("max dim", lambda a: a.max(1), [R(3, 4)]),
    ("max dim values", lambda a: kael.max(a, 0).values, [S(3, 4)]),
    ("max dim keepdim", lambda a: a.max(-1, keepdim=True)[0], [R(2, 3, 2)]),
    ("min dim", lambda a: a.min(0), [R(3, 4)]),
    ("min dim keepdim", lambda a: kael.min(a, 1, keepdim=True).values, [S(3, 4)]),
    ("amax dims", lambda a: a.amax((0, 2)), [R(2, 3, 2)]),
    ("amin", lambda a: a.amin(1, keepdim=True), [R(3, 4)]),
    ("logsumexp", lambda a: a.logsumexp(1), [R(3, 4)]),
    ("logsumexp dims keepdim", lambda a: kael.logsumexp(a, (0, 1), keepdim=True), [S(3, 4)]),
    ("softmax dim 1", lambda a: a.softmax(1), [R(3, 4)]),
    ("softmax dim 0", lambda a: kael.softmax(a, 0), [S(3, 4)]),
    ("log_softmax", lambda a: a.log_softmax(-1), [R(3, 4)]),
    ("log_softmax strided", lambda a: F.log_softmax(a, 0), [S(3, 4)]),
    # matmul in every form
    ("matmul vector vector", lambda a, b: a @ b, [R(3), R(3)]),
    ("matmul matrix vector", lambda a, b: a @ b, [R(2, 3), R(3)]),
    ("matmul vector matrix", lambda a, b: a @ b, [R(3), R(3, 2)]),
    ("matmul matrix matrix", lambda a, b: kael.matmul(a, b), [R(2, 3), R(3, 4)]),
    ("matmul strided", lambda a, b: a @ b, [S(2, 3), S(3, 2)]),
    ("matmul batched", lambda a, b: a @ b, [R(2, 2, 3), R(2, 3, 2)]),
    ("matmul batched matrix", lambda a, b: a @ b, [R(2, 2, 3), R(3, 2)]),
    ("matmul matrix batched", lambda a, b: a @ b, [R(2, 3), R(2, 3, 2)]),
    ("matmul broadcast batch", lambda a, b: a @ b, [R(2, 1, 2, 3), R(3, 3, 2)]),
    ("matmul vector batched", lambda a, b: a @ b, [R(3), R(2, 3, 2)]),
    ("matmul batched vector", lambda a, b: a @ b, [R(2, 2, 3), R(3)]),
    ("matmul constant", lambda a, b: a @ b, [R(2, 3), K(lambda: kael.ones(3, 2, dtype=F64))]),
    ("linear", lambda x, w, b: F.linear(x, w, b), [R(2, 3), R(4, 3), R(4)]),
    ("linear no bias", lambda x, w: kael.linear(x, w), [R(2, 3), S(4, 3)]),
    ("linear 3-d input", lambda x, w, b: F.linear(x, w, b), [R(2, 2, 3), R(2, 3), R(2)]),
    ("linear 1-d input", lambda x, w, b: F.linear(x, w, b), [R(3), R(2, 3), R(2)]),
    ("linear strided input", lambda x, w, b: F.linear(x, w, b), [S(4, 3), R(2, 3), R(2)]),
    # shape
    ("reshape", lambda a: a.reshape(4, 3), [R(3, 4)]),
    ("reshape strided (copies)", lambda a: a.reshape(-1), [S(3, 4)]),
    ("view", lambda a: a.view(2, 6) * 1.0, [R(3, 4)]),
    ("view_as", lambda a, b: a.view_as(b), [R(2, 3), K(lambda: kael.zeros(3, 2))]),
    ("transpose", lambda a: a.transpose(0, 1), [R(3, 4)]),
    ("transpose 3-d", lambda a: kael.transpose(a, 0, 2), [R(2, 3, 2)]),
    ("permute", lambda a: a.permute(2, 0, 1), [R(2, 3, 2)]),
    ("T", lambda a: a.T, [S(3, 4)]),
    ("mT", lambda a: a.mT, [R(2, 3, 2)]),
    ("expand", lambda a: a.expand(2, 3, 4), [R(3, 1)]),
    ("expand_as", lambda a: a.expand_as(kael.zeros(3, 4)), [R(4)]),
    ("unsqueeze", lambda a: a.unsqueeze(1), [R(3, 4)]),
    ("squeeze dim", lambda a: a.squeeze(1), [R(3, 1, 2)]),
    ("squeeze all", lambda a: kael.squeeze(a), [R(1, 3, 1)]),
    ("flatten", lambda a: a.flatten(), [R(2, 3, 2)]),
    ("flatten strided", lambda a: a.flatten(), [S(3, 4)]),
    ("flatten range", lambda a: kael.flatten(a, 1), [R(2, 3, 2)]),
    ("clone", lambda a: a.clone(), [R(3)]),
    ("contiguous", lambda a: a.contiguous(), [S(3, 4)]),
    ("cat", lambda a, b: kael.cat([a, b]), [R(2, 3), R(1, 3)]),
    ("cat dim 1 strided", lambda a, b: kael.cat([a, b], 1), [S(3, 4), R(3, 2)]),
    ("cat with constant", lambda a, c: kael.cat([c, a, c], -1), [R(2, 2), K(lambda: kael.ones(2, 1, dtype=F64))]),
    ("cat same input", lambda a: kael.cat([a, a * 2]), [R(3)]),
    ("stack", lambda a, b: kael.stack([a, b]), [R(3, 2), R(3, 2)]),
    ("stack dim 1 strided", lambda a, b: kael.stack([a, b], 1), [S(3, 2), R(3, 2)]),
    ("stack dim -1", lambda a, b: kael.stack([a, b, a], -1), [R(2, 2), R(2, 2)]),
    # indexing
    ("index int", lambda a: a[1], [R(3, 4)]),
    ("index negative", lambda a: a[-1, -2], [R(3, 4)]),
    ("index slice step", lambda a: a[1:, ::2], [R(3, 4)]),
    ("index slice strided", lambda a: a[::2, 1:3], [S(3, 4)]),
    ("index None Ellipsis", lambda a: a[None, ..., 1], [R(2, 3, 2)]),
    ("index list", lambda a: a[[2, 0]], [R(3, 4)]),
    ("index repeated", lambda a: a[[0, 0, 2, 0]], [R(3, 4)]),
    ("index pairs repeated", lambda a: a[[0, 0, 1], [1, 1, 3]], [S(3, 4)]),
    ("index tensor 2-d", lambda a: a[kael.tensor([[1, 1], [0, 2]])], [R(3, 2)]),
    ("index mixed", lambda a: a[:, [3, 0, 3]], [R(3, 4)]),
    ("index bool mask", lambda a: a[mask34()], [R(3, 4)]),
    ("index data mask", lambda a: a[a > 0], [R(3, 4)]),
    ("index row mask", lambda a: a[kael.tensor([True, False, True])], [S(3, 4)]),
    # losses
    ("mse_loss", lambda a, b: F.mse_loss(a, b), [R(3, 4), R(3, 4)]),
    ("mse_loss sum", lambda a, b: kael.mse_loss(a, b, reduction="sum"), [S(3, 2), R(3, 2)]),
    ("mse_loss none", lambda a: F.mse_loss(a, kael.zeros(3, dtype=F64), reduction="none"), [R(3)]),
    ("cross_entropy", lambda a: F.cross_entropy(a, kael.tensor([0, 2, 1])), [R(3, 4)]),
    ("cross_entropy strided", lambda a: kael.cross_entropy(a, kael.tensor([3, 3, 0])), [S(3, 4)]),
    ("cross_entropy sum", lambda a: F.cross_entropy(a, kael.tensor([1, 1]), reduction="sum"), [R(2, 3)]),
    ("cross_entropy none", lambda a: F.cross_entropy(a, kael.tensor([1, 0]), reduction="none"), [R(2, 3)]),
    ("cross_entropy ignore_index", lambda a: F.cross_entropy(a, kael.tensor([1, -100, 2])), [R(3, 3)]),
    ("cross_entropy probabilities", lambda a, p: F.cross_entropy(a, p.softmax(1)), [R(2, 3), R(2, 3)]),
    ("cross_entropy 1-d", lambda a: F.cross_entropy(a, kael.tensor(2)), [R(4)]),
    ("nll_loss", lambda a: F.nll_loss(a, kael.tensor([0, 2, 1])), [R(3, 4)]),
    ("nll_loss of log_softmax", lambda a: kael.nll_loss(a.log_softmax(1), kael.tensor([1, 0])), [S(2, 3)]),
    ("nll_loss sum", lambda a: F.nll_loss(a, kael.tensor([1, 1, 0]), reduction="sum"), [R(3, 2)]),
    ("nll_loss none", lambda a: F.nll_loss(a, kael.tensor([1, 2]), reduction="none"), [R(2, 3)]),
    ("bce_with_logits", lambda a, t: F.binary_cross_entropy_with_logits(a, t), [R(3, 4), P(3, 4)]),
    ("bce_with_logits strided", lambda a: kael.binary_cross_entropy_with_logits(
        a, kael.tensor([[0.0, 1.0], [1.0, 1.0], [0.0, 0.5]], dtype=F64), reduction="sum"), [S(3, 2)]),
    ("bce_with_logits none", lambda a: F.binary_cross_entropy_with_logits(
        a, kael.ones(4, dtype=F64), reduction="none"), [R(4)]),
    # ops whose node no other case reaches (test_op_registry.py finds them by walking the graphs)
    ("erf", lambda a: kael.erf(a), [R(3, 2)]),
    ("rsqrt", lambda a: (a * a + 1.0).rsqrt(), [R(3)]),
    ("sign floor ceil", lambda a: a.sign() * a + kael.floor(a) + kael.ceil(a), [R(4)]),
    ("remainder", lambda a: a % 0.7, [R(4)]),
    ("std", lambda a: a.std(1), [R(3, 4)]),
    ("norm", lambda a: a.norm(), [R(3, 2)]),
    ("t", lambda a: a.t() * 2.0, [S(3, 4)]),
    ("pad", lambda a: F.pad(a, (1, 2)), [R(2, 3)]),
    ("embedding", lambda w: F.embedding(kael.tensor([0, 2, 2]), w), [R(3, 2)]),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b), [R(2, 4), R(4), R(4)]),
    ("binary_cross_entropy", lambda a: F.binary_cross_entropy(a.sigmoid(), kael.tensor([0.0, 1.0, 1.0], dtype=F64)),
     [R(3)]),
    # composites
    ("mlp", lambda x, w1, b1, w2: (F.relu(F.linear(x, w1, b1)) @ w2).tanh().sum(), [R(3, 2), R(4, 2), R(4), R(4, 2)]),
    ("attention", lambda q, k, v: ((q @ k.mT) / 2.0).softmax(-1) @ v, [R(2, 3), S(4, 3), R(4, 2)]),
    ("layer norm", lambda x: (x - x.mean(-1, keepdim=True)) / (x.var(-1, keepdim=True) + 1e-5).sqrt(), [R(2, 4)]),
]


@pytest.mark.parametrize("name,fn,specs", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(name, fn, specs):
    g = kael.Generator(sum(map(ord, name)))
    inputs = [s.make(g) for s in specs]
    assert gradcheck(fn, inputs)


def test_gradcheck_through_a_cast():
    # float32 in the middle: central differences need a coarse step to see past its rounding.
    g = kael.Generator(2)
    a = R(3).make(g)
    assert gradcheck(lambda x: (x.to(kael.float32) * 2).to(F64), [a], eps=1e-2, atol=1e-4)
    assert gradcheck(lambda x: x.double() * x, [a])


def test_gradcheck_on_strided_leaf_leaves_it_unchanged():
    g = kael.Generator(1)
    a = S(3, 4).make(g)
    before = a.tolist()
    assert gradcheck(lambda x: (x * x).sum(1), [a])
    assert a.tolist() == before and not a.is_contiguous()


# -- gradients have the operands' shapes (sum_to undoes broadcasting) ----------------------------------


def test_broadcast_operand_gets_gradient_of_its_shape():
    act = kael.ones(32, 4, dtype=F64)
    bias = kael.tensor([1.0, 2.0, 3.0, 4.0], dtype=F64, requires_grad=True)
    g = kael.arange(128, dtype=F64).reshape(32, 4)
    (act + bias).backward(g)
    assert bias.grad.shape == (4,)
    close(bias.grad.tolist(), [sum(range(c, 128, 4)) for c in range(4)])
    col = kael.ones(3, 1, requires_grad=True)
    (col * kael.ones(2, 3, 5)).sum().backward()
    assert col.grad.shape == (3, 1) and col.grad.tolist() == [[10.0], [10.0], [10.0]]
    s = kael.tensor(2.0, requires_grad=True)
    (s * kael.ones(2, 3)).sum().backward()
    assert s.grad.shape == () and s.grad.item() == 6.0


def test_sum_to():
    g = kael.ones(2, 3, 4)
    assert kael.ops.sum_to(g, (3, 1)).tolist() == [[8.0], [8.0], [8.0]]
    assert kael.ops.sum_to(g, (4,)).tolist() == [6.0] * 4
    assert kael.ops.sum_to(g, ()).item() == 24.0
    assert kael.ops.sum_to(g, (2, 3, 4)) is g


def test_mixed_dtype_gradients_come_back_in_each_input_dtype():
    a = kael.ones(3, requires_grad=True)  # float32
    b = kael.ones(3, dtype=F64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype is kael.float32 and b.grad.dtype is F64
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    y = kael.tensor(3.0, dtype=F64, requires_grad=True)
    out = x * y
    assert out.dtype is kael.float32
    out.sum().backward()
    assert y.grad.dtype is F64 and y.grad.item() == 3.0 and x.grad.tolist() == [3.0, 3.0]


def test_relu_abs_clamp_max_gradients_at_known_points():
    x = t64([-1.0, 0.5, 2.0])
    x.requires_grad_()
    (F.relu(x) + x.abs() + x.clamp(0.0, 1.0)).sum().backward()
    close(x.grad.tolist(), [0.0 - 1.0 + 0.0, 1.0 + 1.0 + 1.0, 1.0 + 1.0 + 0.0])
    m = t64([[1.0, 3.0, 3.0]])
    m.requires_grad_()
    m.max().backward()
    close(m.grad.tolist(), [[0.0, 0.5, 0.5]])  # ties share the gradient evenly (amax)
    m.grad = None
    m.max(1).values.sum().backward()
    close(m.grad.tolist(), [[0.0, 1.0, 0.0]])  # max with dim: the index it returned


def test_pow_gradient_conventions_at_zero():
    # PyTorch's: d/da a**b is 0 where b == 0 (even at a == 0); d/db a**b is 0 where a == 0.
    a = t64([0.0, 0.0, 2.0])
    b = t64([0.0, 2.0, 0.0])
    a.requires_grad_()
    b.requires_grad_()
    (a ** b).sum().backward()
    close(a.grad.tolist(), [0.0, 0.0, 0.0])
    close(b.grad.tolist(), [0.0, 0.0, math.log(2.0)])
    x = t64([0.0, 1.5])
    x.requires_grad_()
    (x ** 0).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_index_gradient_accumulates_repeated_indices():
    x = kael.zeros(4, requires_grad=True)
    x[[0, 0, 3, 0]].sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 0.0, 1.0]
    y = kael.zeros(2, 3, requires_grad=True)
    (y[:, [2, 2]] * kael.tensor([1.0, 2.0])).sum().backward()
    assert y.grad.tolist() == [[0.0, 0.0, 3.0], [0.0, 0.0, 3.0]]


def test_non_differentiable_outputs_have_no_history():
    x = kael.randn(3, requires_grad=True)
    assert not (x > 0).requires_grad and (x > 0).grad_fn is None
    assert x.argmax().grad_fn is None
    assert x.max(0).indices.grad_fn is None and x.max(0).values.grad_fn is not None
    assert x.sign().grad_fn is not None  # PyTorch records SignBackward (a zero gradient)


def test_min_and_max_nodes_are_named_for_what_they_compute():
    a = kael.tensor([1.0, 5.0, 3.0], requires_grad=True)
    b = kael.tensor([2.0, 4.0, 6.0], requires_grad=True)
    names = {
        "max(a)": kael.max(a), "min(a)": kael.min(a), "amax": a.amax(), "amin": a.amin(),
        "max(a, 0)": kael.max(a, 0).values, "min(a, 0)": kael.min(a, 0).values,
        "maximum": kael.maximum(a, b), "minimum": kael.minimum(a, b),
    }
    assert {k: v.grad_fn.name() for k, v in names.items()} == {
        "max(a)": "AmaxBackward", "min(a)": "AminBackward", "amax": "AmaxBackward", "amin": "AminBackward",
        "max(a, 0)": "MaxBackward", "min(a, 0)": "MinBackward",
        "maximum": "MaximumBackward", "minimum": "MinimumBackward",
    }
