# Autograd: requires_grad, backward, .grad, grad_fn, leaves.
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 2 + 3 * x + 1
y.backward()
print(x.grad)

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = (a * a).sum()
print(b.requires_grad, a.is_leaf, b.is_leaf)
print(type(b.grad_fn).__name__)
b.backward()
print(a.grad)

w = torch.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)
v = torch.tensor([3.0, 4.0])
out = (w @ v).tanh().sum()
out.backward()
print(w.grad)
print(w.grad.shape == w.shape)
