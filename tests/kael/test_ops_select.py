"""The ops issue 23 adds for PyTorch code learners write: split/chunk/unbind/narrow,
gather/scatter/index_select/masked_fill, tril/triu, cumsum/cumprod/prod, sort/argsort/topk/flip,
dot/outer, equal/isclose. Each: values and gradients against PyTorch when it is installed
(float64, the same inputs), a gradcheck on both backends, and PyTorch's error types."""

import pytest

import kael
from kael.autograd import gradcheck

try:
    import torch
except ImportError:  # the cross-checks skip; gradchecks and error tests still run
    torch = None

X = [[0.5, -1.25, 2.0, 0.0], [3.0, 1.5, -0.75, 2.0], [-2.0, 0.25, 1.0, -3.5]]
I_GATHER = [[0, 3, 3], [1, 0, 2], [2, 2, 0]]
CASES = {
    "split": lambda L, x: L.cat([p * (i + 1) for i, p in enumerate(x.split(3, dim=1))], 1),
    "split_sections": lambda L, x: L.split(x, [1, 2], 0)[1],
    "chunk": lambda L, x: x.chunk(2, 1)[1] * 2,
    "unbind": lambda L, x: L.stack(x.unbind(1)[::-1], 0),
    "narrow": lambda L, x: x.narrow(1, 1, 2),
    "gather": lambda L, x: x.gather(1, L.tensor(I_GATHER)),
    "gather_dim0": lambda L, x: L.gather(x, 0, L.tensor([[2, 0, 1, 1]])),
    "index_select": lambda L, x: x.index_select(1, L.tensor([3, 0, 3])),
    "scatter_src": lambda L, x: x.scatter(1, L.tensor([[1], [3], [0]]), x[:, :1] * 10),
    "scatter_value": lambda L, x: x.scatter(0, L.tensor([[0, 2, 1, 0]]), 7.0),
    "scatter_add": lambda L, x: L.zeros(2, 4, dtype=x.dtype).scatter_add(0, L.tensor([[1, 0, 1, 1], [1, 1, 0, 0], [0, 0, 0, 1]]), x),
    "masked_fill": lambda L, x: x.masked_fill(x > 1.1, -9.0),
    "masked_fill_row": lambda L, x: x.masked_fill(L.tensor([True, False, False, True]), 0.0),
    "tril": lambda L, x: x.tril(),
    "triu_1": lambda L, x: L.triu(x, 1),
    "tril_neg": lambda L, x: x.tril(-1),
    "cumsum": lambda L, x: x.cumsum(1),
    "cumsum_0": lambda L, x: L.cumsum(x, 0),
    "cumprod": lambda L, x: x.cumprod(1),
    "prod": lambda L, x: x.prod(),
    "prod_dim": lambda L, x: x.prod(1, keepdim=True),
    "prod_dim0": lambda L, x: L.prod(x, 0),
    "sort": lambda L, x: x.sort(1).values,
    "sort_desc": lambda L, x: L.sort(x, 0, descending=True)[0],
    "topk": lambda L, x: x.topk(2, dim=1).values,
    "topk_small": lambda L, x: L.topk(x, 2, 0, largest=False)[0],
    "flip": lambda L, x: x.flip(1),
    "flip_both": lambda L, x: L.flip(x, [0, 1]),
    "dot": lambda L, x: x[0].dot(x[1]),
    "outer": lambda L, x: L.outer(x[0], x[1]),
}
INDEX_RESULTS = {
    "argsort": lambda L, x: x.argsort(1),
    "argsort_desc": lambda L, x: L.argsort(x, 0, descending=True),
    "sort_indices": lambda L, x: x.sort(1)[1],
    "topk_indices": lambda L, x: x.topk(3).indices,
    "isclose": lambda L, x: L.isclose(x, x + 1e-9),
}


def _run(L, fn):
    x = L.tensor(X, dtype=L.float64, requires_grad=True)
    y = fn(L, x)
    w = L.arange(y.numel(), dtype=L.float64).reshape(y.shape) + 1
    (y * w).sum().backward()
    return _flat(y.tolist()), _flat(x.grad.tolist())


def _flat(v):
    return [e for item in v for e in _flat(item)] if isinstance(v, list) else [v]


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_pytorch(name):
    ky, kg = _run(kael, CASES[name])
    ty, tg = _run(torch, CASES[name])
    assert ky == pytest.approx(ty, rel=1e-12, abs=1e-12)
    assert kg == pytest.approx(tg, rel=1e-12, abs=1e-12)


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", sorted(INDEX_RESULTS))
def test_index_results_match_pytorch(name):
    k = INDEX_RESULTS[name](kael, kael.tensor(X, dtype=kael.float64))
    t = INDEX_RESULTS[name](torch, torch.tensor(X, dtype=torch.float64))
    assert k.tolist() == t.tolist() and k.dtype.name == str(t.dtype).split(".")[1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    x = kael.tensor(X, dtype=kael.float64, requires_grad=True)
    assert gradcheck(lambda t: CASES[name](kael, t), (x,))


def test_prod_and_cumprod_gradients_with_zeros():
    x = kael.tensor([2.0, 0.0, 3.0, 0.0, 5.0], dtype=kael.float64, requires_grad=True)
    assert gradcheck(lambda t: t.prod(), (x,))
    assert gradcheck(lambda t: t.cumprod(0), (x,))
    y = kael.tensor([2.0, 0.0, 3.0], requires_grad=True)
    y.prod().backward()
    assert y.grad.tolist() == [0.0, 6.0, 0.0]


def test_sort_is_stable_and_puts_nan_last():
    x = kael.tensor([1.0, float("nan"), 0.0, 1.0, -2.0, 0.0])
    assert x.sort().indices.tolist() == [4, 2, 5, 0, 3, 1]
    assert x.sort(descending=True).indices.tolist() == [1, 0, 3, 2, 5, 4]
    assert kael.tensor([True, False, True]).sort().indices.tolist() == [1, 0, 2]


def test_split_pieces_are_views_and_chunk_sizes_follow_pytorch():
    x = kael.arange(10.0)
    assert [p.shape[0] for p in x.chunk(4)] == [3, 3, 3, 1]
    assert [p.shape[0] for p in kael.ones(6).chunk(4)] == [2, 2, 2]
    assert [p.shape[0] for p in x.split(4)] == [4, 4, 2]
    assert [p.shape[0] for p in x.tensor_split(3)] == [4, 3, 3]
    first = x.split(5)[0]
    first[0] = 100.0
    assert x[0].item() == 100.0


def test_cumsum_of_int_and_bool_is_int64():
    assert kael.tensor([True, True, False]).cumsum(0).tolist() == [1, 2, 2]
    assert kael.tensor([1, 2, 3]).cumsum(0).dtype is kael.int64
    assert kael.tensor([1, 2, 3]).prod().item() == 6


def test_equal_compares_shape_and_values():
    assert kael.equal(kael.ones(2), kael.ones(2, dtype=kael.float64))
    assert not kael.equal(kael.ones(2), kael.ones(1))
    assert kael.ones(2).equal(kael.ones(2))
    assert kael.isclose(kael.tensor([1.0, float("inf"), float("nan")]), kael.tensor([1.0, float("inf"), float("nan")]),
                        equal_nan=True).tolist() == [True, True, True]


@pytest.mark.parametrize("call, error, match", [
    (lambda x: x.gather(1, kael.tensor([[0, 5]])), RuntimeError, "index 5 is out of bounds for dimension 1 with size 4"),
    (lambda x: x.gather(1, kael.tensor([[0, -1]])), RuntimeError, "index -1 is out of bounds"),
    (lambda x: x.gather(1, kael.tensor([0, 1])), RuntimeError, "same number of dimensions"),
    (lambda x: x.gather(1, kael.tensor([[0.0]])), RuntimeError, "Expected dtype int32/int64 for index"),
    (lambda x: x.index_select(0, kael.tensor([[0]])), IndexError, "Index is supposed to be a vector"),
    (lambda x: x.masked_fill(kael.tensor([1, 0, 1, 0]), 1.0), RuntimeError, "only supports boolean masks"),
    (lambda x: x.masked_fill(x > 0, kael.ones(2)), RuntimeError, "0-dimensional value tensor"),
    (lambda x: x.scatter(1, kael.tensor([[0]]), kael.ones(1, 1, dtype=kael.float64)), RuntimeError, "self.dtype to be equal to src.dtype"),
    (lambda x: x.split([1, 1], 0), RuntimeError, "split_with_sizes expects split_sizes to sum exactly to 3"),
    (lambda x: x.chunk(0), RuntimeError, "greater than 0"),
    (lambda x: x.narrow(1, 3, 2), RuntimeError, "exceeds dimension size"),
    (lambda x: x.topk(5), RuntimeError, "selected index k out of range"),
    (lambda x: x[0].tril(), RuntimeError, "at least 2 dimensions"),
    (lambda x: x.dot(x[0]), RuntimeError, "1D tensors expected"),
    (lambda x: x[0].dot(x[0, :2]), RuntimeError, "inconsistent tensor size"),
    (lambda x: kael.unbind(kael.tensor(1.0)), IndexError, "has no dimensions"),
])
def test_errors_are_pytorchs(call, error, match):
    with pytest.raises(error, match=match):
        call(kael.tensor(X))
