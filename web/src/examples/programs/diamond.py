# ADR 0005's diamond: x feeds two paths, and its AccumulateGrad must wait for both.
# Open the Trace tab and step through the backward pass: the ready list is a stack,
# so MulBackward(b) runs before MulBackward(a), and AccumulateGrad runs once, last.
import kael
import kael.viz

x = kael.tensor([1.0, 2.0], dtype=kael.float64, requires_grad=True)
a = x * 2  # the constant 2 has a null edge: no gradient flows to it
b = x * 3
loss = (a + b).sum()

names = dict(x=x, a=a, b=b, loss=loss)
kael.viz.show(loss, params=names)  # the graph, drawn before backward frees it

with kael.viz.trace(params=names) as tr:
    loss.backward()

kael.viz.show(tr)  # the step table and the stepper
print(tr.table())
print("x.grad =", x.grad.tolist())
