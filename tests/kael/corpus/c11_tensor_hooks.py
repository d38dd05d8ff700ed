# Hooks on tensors: see and change a gradient on its way back.
import torch

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
seen = []
h = x.register_hook(lambda g: seen.append(g.clone()))
y = x * 4
y.register_hook(lambda g: g * 0.5)
y.sum().backward()
print(seen[0], x.grad)
h.remove()
x.grad = None
(x * 4).sum().backward()
print(len(seen), x.grad)
