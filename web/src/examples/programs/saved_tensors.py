# Activation memory: which tensors did the forward pass save for backward?
# saved_tensors_hooks sees every save; checkpoint keeps only the segment's inputs and
# recomputes the rest during backward. (The notebook's sizes, scaled down 8x per side.)
import kael
import kael.viz
from kael.utils.checkpoint import checkpoint


def mlp(x, w1, w2):
    return kael.nn.functional.silu(x @ w1) @ w2


saved = []


def pack(t):
    saved.append((tuple(t.shape), t.numel() * t.element_size()))
    return t


def unpack(t):
    return t


kael.manual_seed(0)
X = kael.randn(8, 32, requires_grad=True)
W1 = kael.randn(32, 128, requires_grad=True)
W2 = kael.randn(128, 32, requires_grad=True)

with kael.autograd.graph.saved_tensors_hooks(pack, unpack):
    out = mlp(X, W1, W2)
print(f"plain forward: saved {len(saved)} tensors, {sum(n for _, n in saved)} bytes")
for shape, n in saved:
    print("   ", shape, n)
kael.viz.show(out, params=dict(X=X, W1=W1, W2=W2))  # the Graph tab totals the saved bytes

saved.clear()
with kael.autograd.graph.saved_tensors_hooks(pack, unpack):
    out2 = checkpoint(mlp, X, W1, W2, use_reentrant=False)
print(f"checkpointed: saved {len(saved)} tensors, {sum(n for _, n in saved)} bytes")
out2.sum().backward()
print("backward still works; X.grad has shape", tuple(X.grad.shape))
