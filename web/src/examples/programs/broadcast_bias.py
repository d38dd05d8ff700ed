# Broadcasting a bias: h = x @ w + b adds a [4] bias to a [32, 4] matrix. The bias is used
# 32 times, so its gradient is the sum over the broadcast dimension: AddBackward un-broadcasts
# (sum_to) before it sends. Step through the Trace tab and watch the shape that reaches b.
import kael
import kael.viz

kael.manual_seed(0)
x = kael.randn(32, 3)
w = kael.randn(3, 4, requires_grad=True)
b = kael.zeros(4, requires_grad=True)
h = x @ w + b
loss = h.sum()

with kael.viz.trace(params=dict(w=w, b=b, h=h)) as tr:
    loss.backward()
kael.viz.show(tr)
print("h:", tuple(h.shape), " b:", tuple(b.shape), " b.grad:", b.grad.tolist())
