import kael
from kael.autograd.graph import saved_tensors_hooks
from kael.utils.checkpoint import checkpoint

saved = []


def pack(t):
    saved.append(t.numel() * t.element_size())
    return t


def mlp(x, w1, w2):
    return kael.nn.functional.silu(x @ w1) @ w2


kael.manual_seed(0)
X = kael.randn(8, 32, requires_grad=True)
W1 = kael.randn(32, 128, requires_grad=True)
W2 = kael.randn(128, 32, requires_grad=True)

with saved_tensors_hooks(pack, lambda t: t):
    plain = mlp(X, W1, W2)
print(f"plain:        {len(saved)} tensors, {sum(saved)} bytes")

saved.clear()
with saved_tensors_hooks(pack, lambda t: t):
    ckpt = checkpoint(mlp, X, W1, W2, use_reentrant=False)
print(f"checkpointed: {len(saved)} tensors, {sum(saved)} bytes")
print("same output:", kael.allclose(plain, ckpt))
