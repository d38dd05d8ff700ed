import kael

x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x  # both edges of MulBackward lead to x's AccumulateGrad
print("edges:", [n.name() for n, _ in y.grad_fn.next_functions])
y.sum().backward()
print("x.grad =", x.grad.tolist(), "= 2x")
