"""nn.functional, layers, sampling, saving and data loading that PyTorch code learners write
reaches for (issue 23): F.one_hot/pad/normalize/layer_norm/embedding, nn.LayerNorm and
nn.Embedding, multinomial, kael.save/kael.load, kael.utils.data."""

import io
import os
import pickle

import pytest

import kael
import kael.nn.functional as F
from kael import nn
from kael.autograd import gradcheck
from kael.utils.data import DataLoader, Dataset, Subset, TensorDataset, random_split

try:
    import torch
except ImportError:
    torch = None

X = [[0.5, -1.25, 2.0, 0.0], [3.0, 1.5, -0.75, 2.0], [0.0, 0.0, 0.0, 0.0]]
CASES = {
    "pad": lambda L, x, Fn: Fn.pad(x, (1, 2)),
    "pad_crop": lambda L, x, Fn: Fn.pad(x, (-1, 1, 2, 0), value=3.0),
    "normalize": lambda L, x, Fn: Fn.normalize(x, dim=1),
    "normalize_p1": lambda L, x, Fn: Fn.normalize(x, p=1.0, dim=0),
    "layer_norm": lambda L, x, Fn: Fn.layer_norm(x[:2], (4,)),
    "layer_norm_affine": lambda L, x, Fn: Fn.layer_norm(x[:2], [4], x[0] * 2, x[1]),
    "embedding": lambda L, x, Fn: Fn.embedding(L.tensor([[2, 0], [0, 1]]), x),
    "embedding_padding": lambda L, x, Fn: Fn.embedding(L.tensor([2, 0, 0, 1]), x, padding_idx=0),
}


def _run(L, Fn, fn):
    x = L.tensor(X, dtype=L.float64, requires_grad=True)
    y = fn(L, x, Fn)
    w = L.arange(y.numel(), dtype=L.float64).reshape(y.shape) + 1
    (y * w).sum().backward()
    return y.reshape(-1).tolist(), x.grad.reshape(-1).tolist()


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_matches_pytorch(name):
    ky, kg = _run(kael, F, CASES[name])
    ty, tg = _run(torch, torch.nn.functional, CASES[name])
    assert ky == pytest.approx(ty, rel=1e-9, abs=1e-9) and kg == pytest.approx(tg, rel=1e-9, abs=1e-6)


# normalize has a zero row (its gradient there is PyTorch's 1/eps, not a derivative), and
# padding_idx's row gets no gradient on purpose: both are checked against PyTorch above
@pytest.mark.parametrize("name", sorted(set(CASES) - {"normalize", "normalize_p1", "embedding_padding"}))
def test_functional_gradcheck(name):
    x = kael.tensor(X, dtype=kael.float64, requires_grad=True)
    assert gradcheck(lambda t: CASES[name](kael, t, F), (x,))


def test_normalize_gradcheck_away_from_zero_rows():
    x = kael.tensor(X[:2], dtype=kael.float64, requires_grad=True)
    assert gradcheck(lambda t: F.normalize(t, dim=1), (x,))


def test_one_hot_and_its_errors():
    assert F.one_hot(kael.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]
    assert F.one_hot(kael.tensor([[1]]), 3).shape == (1, 1, 3) and F.one_hot(kael.tensor([1])).dtype is kael.int64
    with pytest.raises(RuntimeError, match="non-negative"):
        F.one_hot(kael.tensor([1, -1]))
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        F.one_hot(kael.tensor([3]), 3)
    with pytest.raises(RuntimeError, match="LongTensor"):
        F.one_hot(kael.tensor([1.0]))


def test_pad_errors():
    x = kael.ones(2, 3)
    with pytest.raises(RuntimeError, match="divisible by 2"):
        F.pad(x, (1,))
    with pytest.raises(RuntimeError, match="two times the input dimension"):
        F.pad(x, (1,) * 6)
    with pytest.raises(NotImplementedError, match="reflect"):
        F.pad(x, (1, 1), mode="reflect")


def test_layer_norm_module():
    ln = nn.LayerNorm(4)
    assert ln.weight.tolist() == [1.0] * 4 and ln.bias.tolist() == [0.0] * 4
    assert repr(ln) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"
    y = ln(kael.tensor([[1.0, 2.0, 3.0, 4.0]]))
    assert y.mean().item() == pytest.approx(0.0, abs=1e-6) and y.grad_fn is not None
    with pytest.raises(RuntimeError, match="normalized_shape"):
        ln(kael.ones(2, 3))
    assert nn.LayerNorm(4, elementwise_affine=False).weight is None


def test_embedding_module():
    kael.manual_seed(0)
    emb = nn.Embedding(5, 3, padding_idx=1)
    assert emb.weight[1].tolist() == [0.0, 0.0, 0.0] and repr(emb) == "Embedding(5, 3, padding_idx=1)"
    out = emb(kael.tensor([[1, 2, 2]]))
    assert out.shape == (1, 3, 3)
    out.sum().backward()
    assert emb.weight.grad[1].tolist() == [0.0] * 3 and emb.weight.grad[2].tolist() == [2.0] * 3
    with pytest.raises(IndexError, match="index out of range in self"):
        emb(kael.tensor([5]))
    with pytest.raises(RuntimeError, match="'indices'"):
        emb(kael.tensor([1.0]))


def test_multinomial_is_seeded_and_respects_weights():
    kael.manual_seed(3)
    a = kael.multinomial(kael.tensor([0.2, 0.0, 0.8]), 400, replacement=True)
    kael.manual_seed(3)
    b = kael.tensor([0.2, 0.0, 0.8]).multinomial(400, replacement=True)
    assert kael.equal(a, b) and (a == 1).sum().item() == 0 and 250 < (a == 2).sum().item() < 380
    draws = kael.multinomial(kael.ones(2, 4), 4)
    assert draws.shape == (2, 4) and all(sorted(r) == [0, 1, 2, 3] for r in draws.tolist())
    with pytest.raises(RuntimeError, match="without replacement"):
        kael.multinomial(kael.ones(3), 4)
    with pytest.raises(RuntimeError, match="element < 0"):
        kael.multinomial(kael.tensor([1.0, -1.0]), 1)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        kael.multinomial(kael.zeros(2), 1)


def test_save_and_load_a_state_dict_through_a_file(tmp_path):
    kael.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    opt = kael.optim.Adam(model.parameters(), lr=0.01)
    model(kael.ones(1, 2)).sum().backward()
    opt.step()
    path = os.path.join(tmp_path, "ckpt.pt")
    kael.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 4}, path)
    ckpt = kael.load(path)
    fresh = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    fresh.load_state_dict(ckpt["model"])
    assert all(kael.equal(a, b) for a, b in zip(fresh.parameters(), model.parameters())) and ckpt["epoch"] == 4
    assert ckpt["opt"]["state"][0]["step"] == 1
    buf = io.BytesIO()
    kael.save(model.state_dict(), buf)
    buf.seek(0)
    assert list(kael.load(buf)) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_load_refuses_a_pickle_that_would_run_code(tmp_path):
    class Payload:
        def __reduce__(self):
            return (os.getcwd, ())

    path = os.path.join(tmp_path, "evil.pt")
    with open(path, "wb") as f:
        pickle.dump(Payload(), f)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        kael.load(path)
    assert kael.load(path, weights_only=False) == os.getcwd()


class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": kael.tensor([float(i)]), "y": i * i}


def test_dataloader_batches_in_order_and_collates():
    ds = TensorDataset(kael.arange(10.0).reshape(5, 2), kael.arange(5))
    batches = list(DataLoader(ds, batch_size=2))
    assert [yb.tolist() for _, yb in batches] == [[0, 1], [2, 3], [4]] and batches[0][0].shape == (2, 2)
    assert len(DataLoader(ds, batch_size=2)) == 3 and len(DataLoader(ds, batch_size=2, drop_last=True)) == 2
    (batch,) = list(DataLoader(Squares(), batch_size=5))
    assert batch["x"].shape == (5, 1) and batch["y"].tolist() == [0, 1, 4, 9, 16]


def test_dataloader_shuffles_every_sample_once_per_epoch_seeded():
    ds = TensorDataset(kael.arange(7))
    kael.manual_seed(0)
    first = [v for (b,) in DataLoader(ds, batch_size=3, shuffle=True) for v in b.tolist()]
    kael.manual_seed(0)
    again = [v for (b,) in DataLoader(ds, batch_size=3, shuffle=True) for v in b.tolist()]
    assert sorted(first) == list(range(7)) and first == again


def test_random_split_partitions_the_dataset():
    ds = TensorDataset(kael.arange(10))
    a, b = random_split(ds, [0.7, 0.3], generator=kael.Generator().manual_seed(1))
    assert isinstance(a, Subset) and (len(a), len(b)) == (7, 3)
    assert sorted([a[i][0].item() for i in range(7)] + [b[i][0].item() for i in range(3)]) == list(range(10))
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(ds, [3, 3])


def test_reduction_spellings_pytorch_code_uses():
    x = kael.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]])
    assert x.sum(axis=1).tolist() == [7.0, 17.0] and kael.sum(x, axis=0).tolist() == [4.0, 7.0, 13.0]
    assert x.mean(axis=0).tolist() == [2.0, 3.5, 6.5]
    assert kael.tensor([[1, 2, 4], [3, 5, 9]]).mean(dtype=kael.float64).item() == 4.0
    assert x.var(correction=0).item() == pytest.approx(6.666666, rel=1e-5)
    assert x.var(1, correction=2).tolist() == pytest.approx([4.666666, 18.666666], rel=1e-5)
    assert x.std(correction=0).item() == pytest.approx(2.5819889, rel=1e-6)
    assert kael.var(x, dim=1, correction=0, keepdim=True).shape == (2, 1)
    # PyTorch's positional order is var(dim, unbiased, keepdim), and var(unbiased) alone
    assert x.var(1, False).tolist() == pytest.approx([1.5555556, 6.2222223], rel=1e-6)
    assert x.std(1, False, True).shape == (2, 1) and kael.var(x, 0, True).tolist() == [2.0, 4.5, 12.5]
    assert x.var(False).item() == pytest.approx(6.666666, rel=1e-5)
    assert kael.std(x, False).item() == pytest.approx(2.5819889, rel=1e-6)
    assert x.any(dim=1).tolist() == [True, True] and (x > 2).all(1, keepdim=True).tolist() == [[False], [True]]
    assert kael.any(x > 4, dim=0).tolist() == [False, True, True]
    kael.manual_seed(0)
    r = kael.randint(5, (3,))
    assert r.shape == (3,) and all(0 <= v < 5 for v in r.tolist()) and kael.randint(2, 4, (2, 2)).shape == (2, 2)
