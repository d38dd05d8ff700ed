# The notebook's graph walk: what does y = (x * w).sum() leave in memory?
# grad_fn points at the last node; next_functions are the edges to the inputs' nodes.
import kael
import kael.viz

x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * w).sum()


def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + fn.name())
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1)


walk(y.grad_fn)
mul = y.grad_fn.next_functions[0][0]
print("MulBackward saved:", sorted(a for a in dir(mul) if a.startswith("_saved_")))
kael.viz.show(y, params=dict(x=x, w=w, y=y))

y.backward()
print("x.grad =", x.grad.tolist(), "w.grad =", w.grad.tolist())
