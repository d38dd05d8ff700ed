# Scalar expressions in the style of micrograd's tests, checked by autograd.
import torch

x = torch.tensor([-4.0], dtype=torch.double, requires_grad=True)
z = 2 * x + 2 + x
q = z.relu() + z * x
h = (z * z).relu()
y = h + q + q * x
y.backward()
print(y.item(), x.grad.item())

a = torch.tensor([-4.0], dtype=torch.double, requires_grad=True)
b = torch.tensor([2.0], dtype=torch.double, requires_grad=True)
c = a + b
d = a * b + b ** 3
c = c + c + 1
c = c + 1 + c + (-a)
d = d + d * 2 + (b + a).relu()
d = d + 3 * d + (b - a).relu()
e = c - d
f = e ** 2
g = f / 2.0
g = g + 10.0 / f
g.backward()
print(f"{g.item():.6f} {a.grad.item():.6f} {b.grad.item():.6f}")
