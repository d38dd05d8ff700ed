# One head of self-attention with fixed weights, and its gradients.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Head(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.q = nn.Linear(d, h, bias=False)
        self.k = nn.Linear(d, h, bias=False)
        self.v = nn.Linear(d, h, bias=False)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.q(x), self.k(x), self.v(x)
        w = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-1])
        w = w.masked_fill(torch.tril(torch.ones(T, T)) == 0, float("-inf"))
        return F.softmax(w, dim=-1) @ v


head = Head(4, 3)
with torch.no_grad():
    for i, p in enumerate(head.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) + 0.1 * i)
x = torch.linspace(-1, 1, 2 * 3 * 4).reshape(2, 3, 4)
out = head(x)
print(out.shape)
print(out[0])
out.pow(2).sum().backward()
print(head.q.weight.grad)
