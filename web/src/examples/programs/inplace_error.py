# The in-place version error: MulBackward saves w to compute x's gradient. Changing w in
# place afterwards bumps w's version, and backward refuses to use the stale value.
import kael
import kael.viz

x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = kael.tensor([0.5, -1.0, 2.0])  # a constant: no grad, but saved for x's gradient
y = x * w
w.mul_(2)  # in place: w's version goes 0 -> 1
loss = y.sum()

kael.viz.show(loss, params=dict(x=x, w=w))  # the Graph tab marks the saved tensor as stale
try:
    with kael.viz.trace(params=dict(x=x, w=w)) as tr:
        loss.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
kael.viz.show(tr)  # the Trace tab shows the steps up to the failure

# The fix: change w before the forward pass uses it (or clone it).
x.grad = None
y = x * w
y.sum().backward()
print("x.grad =", x.grad.tolist())
