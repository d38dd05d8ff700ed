"""The PyTorch autograd notebook's examples (seed 003), reproduced with kael.

The notebook's full-size activation-memory examples (a 64x256 @ 256x1024 MLP, a 4096x4096
linear layer) run on the numpy backend only: in pure Python the matrix products alone take
minutes. Scaled-down versions with the same structure, and expected bytes computed from their
shapes, run on every backend.
"""

import pytest

import kael
import kael.nn.functional as F
from kael.autograd import Function, gradcheck
from kael.autograd.graph import saved_tensors_hooks
from kael.utils.checkpoint import checkpoint

F32 = kael.float32
F64 = kael.float64

needs_numpy_backend = pytest.mark.skipif(
    kael.backend_name() != "numpy",
    reason="the notebook's full-size matrices take minutes in pure Python; the scaled-down "
    "test of the same graph runs on this backend",
)


# -- graph_walk.py -------------------------------------------------------------------------------


def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + fn.name())
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1)


def test_graph_walk(capsys):
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x * w).sum()

    walk(y.grad_fn)
    mul = y.grad_fn.next_functions[0][0]
    print("MulBackward saved:", sorted(a for a in dir(mul) if a.startswith("_saved")))
    y.backward()
    print("x.grad =", x.grad.tolist(), "w.grad =", w.grad.tolist())

    assert capsys.readouterr().out == (
        "SumBackward\n"
        "  MulBackward\n"
        "    AccumulateGrad\n"
        "    AccumulateGrad\n"
        "MulBackward saved: ['_saved_other', '_saved_self']\n"
        "x.grad = [0.5, -1.0, 2.0] w.grad = [1.0, 2.0, 3.0]\n"
    )


def test_mul_backward_saved_both_inputs():
    x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
    mul = (x * w).sum().grad_fn.next_functions[0][0]
    assert mul._saved_self.tolist() == x.tolist()  # d(xw)/dw = x
    assert mul._saved_other.tolist() == w.tolist()  # d(xw)/dx = w
    assert mul._saved_self.untyped_storage() is x.untyped_storage()  # a reference, not a copy
    names = [name for name, _ in mul.saved_tensor_records()]
    assert names == ["other", "self"]  # packed in PyTorch's order: other (w) first
    assert [f.variable for f, _ in mul.next_functions] == [x, w]


# -- saved_bytes.py -----------------------------------------------------------------------------------


def mlp(x, w1, w2):
    return F.silu(x @ w1) @ w2


def count_saved(fn, *args):
    saved = []

    def pack(t):
        saved.append(t.numel() * t.element_size())
        return t

    with saved_tensors_hooks(pack, lambda t: t):
        out = fn(*args)
    return out, saved


def mlp_inputs(n, d, h):
    kael.manual_seed(0)
    return (kael.randn(n, d, requires_grad=True), kael.randn(d, h, requires_grad=True),
            kael.randn(h, d, requires_grad=True))


@needs_numpy_backend
def test_saved_bytes_of_the_notebook_mlp_and_its_checkpoint():
    X, W1, W2 = mlp_inputs(64, 256, 1024)
    out, saved = count_saved(mlp, X, W1, W2)
    assert (len(saved), sum(saved)) == (5, 2_686_976)
    assert sorted(saved) == [65536, 262144, 262144, 1048576, 1048576]
    out2, saved = count_saved(lambda *a: checkpoint(mlp, *a, use_reentrant=False), X, W1, W2)
    assert (len(saved), sum(saved)) == (3, 2_162_688)
    out2.sum().backward()
    assert tuple(X.grad.shape) == (64, 256)


@pytest.mark.parametrize("n,d,h", [(4, 8, 16), (3, 5, 7)])
def test_saved_bytes_scaled_down_on_every_backend(n, d, h):
    X, W1, W2 = mlp_inputs(n, d, h)
    out, saved = count_saved(mlp, X, W1, W2)
    # X, W1 (for x @ w1), x @ w1 (for silu), silu's output and W2 (for the second matmul)
    expected = [4 * n * d, 4 * d * h, 4 * n * h, 4 * n * h, 4 * h * d]
    assert sorted(saved) == sorted(expected)
    out2, saved = count_saved(lambda *a: checkpoint(mlp, *a), X, W1, W2)
    assert sorted(saved) == sorted([4 * n * d, 4 * d * h, 4 * h * d])  # only the segment's inputs
    assert out2.grad_fn.name() == "MatmulBackward"  # the segment's own graph, as PyTorch's non-reentrant checkpoint
    assert out2.tolist() == out.tolist()
    out.sum().backward()
    grads = [t.grad.tolist() for t in (X, W1, W2)]
    for t in (X, W1, W2):
        t.grad = None
    out2.sum().backward()  # recomputes the segment: the same gradients
    for t, g in zip((X, W1, W2), grads):
        assert _close(t.grad.tolist(), g)


def _close(got, want, tol=1e-5):
    flat_got = [v for row in got for v in row]
    flat_want = [v for row in want for v in row]
    return all(abs(a - b) <= tol * (1 + abs(b)) for a, b in zip(flat_got, flat_want))


def test_checkpoint_gradients_match_gradcheck():
    g = kael.Generator(9)
    x = kael.randn(2, 3, dtype=F64, generator=g, requires_grad=True)
    w1 = kael.randn(3, 4, dtype=F64, generator=g, requires_grad=True)
    w2 = kael.randn(4, 2, dtype=F64, generator=g, requires_grad=True)
    assert gradcheck(lambda a, b, c: checkpoint(mlp, a, b, c), [x, w1, w2])
    const = kael.randn(3, 4, dtype=F64, generator=g)
    assert gradcheck(lambda a, c: checkpoint(mlp, a, const, c), [x, w2])


def test_saved_tensor_hooks_unpack_is_used_in_backward():
    unpacked = []
    x = kael.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: ("packed", t), lambda p: unpacked.append(p[0]) or p[1]):
        y = (x * x).sum()
    y.backward()
    assert unpacked == ["packed", "packed"] and x.grad.tolist() == [2.0, 4.0]


# -- linear_gelu_saved.py (exercise 1) ----------------------------------------------------------------


def linear_gelu_records(n, d, make_weight):
    records = []

    def pack(t):
        records.append((tuple(t.shape), t.numel() * t.element_size()))
        return t

    kael.manual_seed(0)
    weight, bias = make_weight()
    x = kael.randn(n, d, requires_grad=True)
    with saved_tensors_hooks(pack, lambda t: t):
        y = F.gelu(F.linear(x, weight, bias))
    return records, y


@needs_numpy_backend
def test_linear_gelu_saves_input_weight_and_output():
    def weight():
        # nn.Linear(4096, 4096)'s tensors; filling 16.7 M values from kael's generator would only
        # cost time here: the values do not change what is saved.
        return kael.zeros(4096, 4096, requires_grad=True), kael.zeros(4096, requires_grad=True)

    records, _ = linear_gelu_records(8, 4096, weight)
    assert records == [((8, 4096), 131072), ((4096, 4096), 67108864), ((8, 4096), 131072)]


def test_linear_gelu_saves_the_same_tensors_with_nn_linear_on_every_backend():
    records = []

    def pack(t):
        records.append((tuple(t.shape), t.numel() * t.element_size()))
        return t

    kael.manual_seed(0)
    lin = kael.nn.Linear(16, 16)
    x = kael.randn(8, 16, requires_grad=True)
    with saved_tensors_hooks(pack, lambda t: t):
        y = F.gelu(lin(x))
    assert records == [((8, 16), 512), ((16, 16), 1024), ((8, 16), 512)]
    y.sum().backward()
    assert lin.weight.grad.shape == (16, 16) and lin.bias.grad.shape == (16,)


# -- swiglu_function.py ----------------------------------------------------------------------------------


class SiluMul(Function):
    @staticmethod
    def forward(ctx, gate, up):
        ctx.save_for_backward(gate, up)  # only the inputs; the intermediates are recomputed
        return F.silu(gate) * up

    @staticmethod
    def backward(ctx, grad_out):
        gate, up = ctx.saved_tensors
        sig = kael.sigmoid(gate)
        silu = gate * sig
        d_gate = grad_out * up * sig * (1 + gate * (1 - sig))
        d_up = grad_out * silu
        return d_gate, d_up


def test_silu_mul_function():
    kael.manual_seed(0)
    g = kael.randn(4, 8, dtype=F64, requires_grad=True)
    u = kael.randn(4, 8, dtype=F64, requires_grad=True)
    assert gradcheck(SiluMul.apply, (g, u)) is True

    y = SiluMul.apply(g, u)
    ref = F.silu(g) * u
    assert kael.allclose(y, ref)
    assert y.grad_fn.name() == "SiluMulBackward"
    assert type(y.grad_fn).__name__ == "SiluMulBackward"
    assert [s.shape for s in y.grad_fn.saved_tensors] == [(4, 8), (4, 8)]


def test_silu_mul_modifying_a_saved_tensor_in_backward_is_caught():
    class SiluMulInPlace(SiluMul):
        @staticmethod
        def backward(ctx, grad_out):
            gate, up = ctx.saved_tensors
            gate.mul_(2)  # someone else's data: the version counter notices
            gate, up = ctx.saved_tensors
            return grad_out * up, grad_out * gate

    g = kael.randn(2, 3, dtype=F64, requires_grad=True)
    u = kael.randn(2, 3, dtype=F64, requires_grad=True)
    with pytest.raises(RuntimeError, match="^one of the variables needed for gradient computation has been "
                                           r"modified by an inplace operation: expected version 0, got 1 "
                                           r"\(saved by SiluMulInPlaceBackward\)$"):
        SiluMulInPlace.apply(g, u).sum().backward()


# -- inference_mode.py --------------------------------------------------------------------------------


def test_no_grad_and_inference_mode():
    x = kael.randn(4, requires_grad=True)
    with kael.no_grad():
        a = x * 2
    with kael.inference_mode():
        b = x * 2
    assert (a.requires_grad, a.is_inference()) == (False, False)
    assert (b.requires_grad, b.is_inference()) == (False, True)
    with pytest.raises(RuntimeError) as info:
        (b * x).sum().backward()
    assert str(info.value).split(".")[0] == "Inference tensors cannot be saved for backward"
    c = b.clone()  # the notebook's advice: clone() into an ordinary tensor
    (c * x).sum().backward()
    assert x.grad.tolist() == pytest.approx(c.tolist())


def test_inference_mode_inplace_rules():
    with kael.inference_mode():
        b = kael.ones(3)
        b.add_(1.0)  # allowed inside
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        b.add_(1.0)
    assert b.tolist() == [2.0, 2.0, 2.0]
