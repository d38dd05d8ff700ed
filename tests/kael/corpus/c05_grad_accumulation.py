# Gradients add up across backward calls until zeroed; retain_grad on a non-leaf.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
for step in range(3):
    y = (x * 3).sum()
    y.backward()
    print(step, x.grad)
x.grad.zero_()
print(x.grad)

h = x * 2
h.retain_grad()
z = (h ** 2).sum()
z.backward()
print(h.grad, x.grad)
print(h.is_leaf, h.grad_fn is not None)
