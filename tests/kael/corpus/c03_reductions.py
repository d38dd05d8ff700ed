# Reductions along dims: sum, mean, max with indices, argmax, std, var.
import torch

x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
print(x.sum(), x.mean(), x.sum(0), x.mean(dim=1))
values, indices = x.max(dim=1)
print(values, indices)
print(x.argmax(), x.argmin(dim=0))
print(x.std(), x.var(dim=1), x.var(dim=1, unbiased=False))
print(x.min(), x.max())
print(torch.softmax(x, dim=1))
print(torch.log_softmax(x, dim=-1))
print(x.amax(dim=0), x.logsumexp(dim=1))
print((x > 2).sum(), (x > 2).float().mean())
print(x.prod(), x.cumsum(dim=1))
