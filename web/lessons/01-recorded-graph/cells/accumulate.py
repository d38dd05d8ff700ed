import kael

x = kael.tensor([1.0, 2.0, 3.0], requires_grad=True)
acc = (x * 2).grad_fn.next_functions[0][0]
print(acc.name(), "holds x:", acc.variable is x)

for step in range(3):
    (x * 2).sum().backward()
    print("after backward", step + 1, "x.grad =", x.grad.tolist())

x.grad = None  # what optimizer.zero_grad() does
(x * 2).sum().backward()
print("after zeroing   x.grad =", x.grad.tolist())
