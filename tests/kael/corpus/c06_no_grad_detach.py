# Turning gradients off: no_grad, detach, requires_grad_.
import torch

w = torch.tensor([0.5, -0.5], requires_grad=True)
with torch.no_grad():
    y = w * 2
print(y.requires_grad)
d = w.detach()
print(d.requires_grad, (d * w).requires_grad)
print(torch.is_grad_enabled())
with torch.no_grad():
    print(torch.is_grad_enabled())
t = torch.ones(3)
t.requires_grad_()
(t * t).sum().backward()
print(t.grad)


@torch.no_grad()
def evaluate(v):
    return v * 10


print(evaluate(w).requires_grad)
