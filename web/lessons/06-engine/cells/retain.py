import kael

x = kael.tensor([1.0, 2.0], requires_grad=True)
loss = (x * x).sum()
loss.backward()
try:
    loss.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(" (")[0])

loss = (x * x).sum()
x.grad = None
loss.backward(retain_graph=True)
loss.backward()  # the saved tensors were kept: this one works, and accumulates
print("two backwards, x.grad =", x.grad.tolist())
