import kael

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
print("x is a leaf:", x.grad_fn is None, "| y is not:", y.grad_fn is not None)
