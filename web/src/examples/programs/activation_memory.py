# Activation memory over time: the notebook's example, with and without checkpoint, forward and
# backward, in the Memory tab. kael.viz.memory() counts every tensor saved for backward (through
# kael's own saved_tensors_hooks) and notes when backward lets it go.
#
# Each of the 14 matrix products below (64x256 by 256x1024 and back) is 16.7 million
# multiply-adds: seconds each in pure Python, so in the page kael hands them to a JavaScript
# kernel that gives the same bits (about 0.1 s each). Backward needs two products per forward
# product (the gradient of each operand), and checkpoint runs its forward again. The progress
# bar above the tabs counts the products as they are done (playground.progress).
import kael
import kael.viz
import playground
from kael.utils.checkpoint import checkpoint

PRODUCTS = 14


def done(n):
    playground.progress(n, PRODUCTS, "matrix products")


def mlp(x, w1, w2):
    return kael.nn.functional.silu(x @ w1) @ w2


kael.manual_seed(0)
X = kael.randn(64, 256, requires_grad=True)
W1 = kael.randn(256, 1024, requires_grad=True)
W2 = kael.randn(1024, 256, requires_grad=True)

print("plain: forward and backward (6 matrix products)…")
done(0)
with kael.viz.memory("plain") as plain:
    loss = mlp(X, W1, W2).sum()
    done(2)  # x @ w1, then @ w2
    loss.backward()
    done(6)  # a gradient for each operand of each product
print(plain)  # forward saved 5 tensors, 2686976 bytes; backward frees them one node at a time

print("checkpoint: forward, then backward with the forward again (8 matrix products)…")
with kael.viz.memory("checkpoint") as ckpt:
    loss = checkpoint(mlp, X, W1, W2, use_reentrant=False).sum()
    done(8)
    loss.backward()
    done(14)  # the forward's 2 again, then 4 for the gradients
print(ckpt)  # forward saved 3 tensors, 2162688 bytes; backward saves the 5 again, then frees all
kael.viz.show(plain)
kael.viz.show(ckpt)
