# Activation checkpointing: the same gradients, the segment recomputed in backward.
import torch
from torch.utils.checkpoint import checkpoint

w = torch.tensor([[0.5, -0.25], [0.75, 1.0]], requires_grad=True)


def block(x):
    return (x @ w).tanh() * 2


x = torch.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
y = checkpoint(block, x, use_reentrant=False)
y.sum().backward()
print(y.requires_grad)
print(x.grad)
print(w.grad)
g1 = w.grad.clone()
w.grad = None
block(x).sum().backward()
print(torch.allclose(g1, w.grad))
