import kael
from kael.autograd.graph import saved_tensors_hooks

saved = []


def pack(t):
    saved.append((tuple(t.shape), t.numel() * t.element_size()))
    return t


def mlp(x, w1, w2):
    return kael.nn.functional.silu(x @ w1) @ w2


kael.manual_seed(0)
N, D, H = 8, 32, 128  # the notebook uses 64, 256, 1024: 8 times each
X = kael.randn(N, D, requires_grad=True)
W1 = kael.randn(D, H, requires_grad=True)
W2 = kael.randn(H, D, requires_grad=True)

with saved_tensors_hooks(pack, lambda t: t):
    out = mlp(X, W1, W2)
for shape, n in saved:
    print(shape, n)
print(f"saved {len(saved)} tensors, {sum(n for _, n in saved)} bytes")
