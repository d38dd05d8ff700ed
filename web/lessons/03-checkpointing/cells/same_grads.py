import kael
from kael.utils.checkpoint import checkpoint


def mlp(x, w1, w2):
    return kael.nn.functional.silu(x @ w1) @ w2


kael.manual_seed(0)
X = kael.randn(8, 32, dtype=kael.float64, requires_grad=True)
W1 = kael.randn(32, 128, dtype=kael.float64, requires_grad=True)
W2 = kael.randn(128, 32, dtype=kael.float64, requires_grad=True)

mlp(X, W1, W2).sum().backward()
plain = [t.grad.clone() for t in (X, W1, W2)]
for t in (X, W1, W2):
    t.grad = None

calls = []


def counted(x, w1, w2):
    calls.append("forward")
    return mlp(x, w1, w2)


checkpoint(counted, X, W1, W2, use_reentrant=False).sum().backward()
print("segment forward ran", len(calls), "times")
print("same gradients:", all(kael.allclose(a, t.grad) for a, t in zip(plain, (X, W1, W2))))
