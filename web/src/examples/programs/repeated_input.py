# Repeated input: in x * x both edges of MulBackward lead to the same AccumulateGrad,
# so its dependency count is 2 and the two contributions are summed before .grad is set.
import kael
import kael.viz

x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x * x).sum()

with kael.viz.trace(params=dict(x=x, y=y)) as tr:
    y.backward()
kael.viz.show(tr)
print(tr.table())
print("x.grad =", x.grad.tolist(), "(2x)")
