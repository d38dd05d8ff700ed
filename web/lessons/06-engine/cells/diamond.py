import kael
import kael.viz

x = kael.tensor([1.0, 2.0], dtype=kael.float64, requires_grad=True)
a = x * 2
b = x * 3
loss = (a + b).sum()

with kael.viz.trace(params=dict(x=x, a=a, b=b, loss=loss)) as tr:
    loss.backward()
print(tr.table())
print("x.grad =", x.grad.tolist())
