# LayerNorm: each row normalised to mean 0 and variance 1, then scaled and shifted.
import torch
import torch.nn as nn

x = torch.tensor([[1.0, 2.0, 3.0, 4.0], [2.0, -2.0, 0.5, 0.0]], requires_grad=True)
ln = nn.LayerNorm(4)
y = ln(x)
print(y)
print(y.mean(dim=-1), y.var(dim=-1, unbiased=False))
(y * torch.arange(4.0)).sum().backward()
print(x.grad)
print(ln.weight.grad, ln.bias.grad)
print(torch.nn.functional.layer_norm(x, (4,)).detach())
