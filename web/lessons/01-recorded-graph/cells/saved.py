import kael

x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = kael.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = (x * w).sum()

mul = y.grad_fn.next_functions[0][0]
print(mul.name(), "saved:", sorted(a for a in dir(mul) if a.startswith("_saved_")))
print("_saved_self  =", mul._saved_self.tolist())
print("_saved_other =", mul._saved_other.tolist())

y.backward()
print("x.grad =", x.grad.tolist())  # dy/dx = w
print("w.grad =", w.grad.tolist())  # dy/dw = x
