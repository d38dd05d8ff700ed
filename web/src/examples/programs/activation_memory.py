# Activation memory over time: the notebook's example, with and without checkpoint, in the
# Memory tab. kael.viz.memory() counts every tensor saved for backward (through kael's own
# saved_tensors_hooks) and notes when it is let go.
import kael
import kael.viz
from kael.utils.checkpoint import checkpoint


def mlp(x, w1, w2):
    return kael.nn.functional.silu(x @ w1) @ w2


kael.manual_seed(0)
X = kael.randn(64, 256, requires_grad=True)
W1 = kael.randn(256, 1024, requires_grad=True)
W2 = kael.randn(1024, 256, requires_grad=True)

# The notebook's sizes. Pure Python in the browser takes a few seconds per matrix product, so
# this part runs the forward only; dropping the output frees what its graph saved.
with kael.viz.memory("plain") as plain:
    out = mlp(X, W1, W2)
    del out
with kael.viz.memory("checkpoint") as ckpt:
    out = checkpoint(mlp, X, W1, W2, use_reentrant=False)
    del out
print(plain)  # forward saved 5 tensors, 2686976 bytes
print(ckpt)  # forward saved 3 tensors, 2162688 bytes
kael.viz.show(plain)
kael.viz.show(ckpt)

# Forward and backward, 8x smaller per side: backward frees each node's saved tensors right
# after running it; checkpoint saves the segment's activations again, inside the backward.
x, w1, w2 = (kael.randn(*shape, requires_grad=True) for shape in [(8, 32), (32, 128), (128, 32)])
with kael.viz.memory("plain, with backward (1/8 size)") as small:
    mlp(x, w1, w2).sum().backward()
with kael.viz.memory("checkpoint, with backward (1/8 size)") as small_ckpt:
    checkpoint(mlp, x, w1, w2, use_reentrant=False).sum().backward()
kael.viz.show(small)
kael.viz.show(small_ckpt)
