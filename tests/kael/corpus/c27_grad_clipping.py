# Gradient clipping: clip_grad_norm_ returns the norm before clipping.
import torch
import torch.nn as nn

model = nn.Linear(3, 2)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]))
    model.bias.fill_(0.5)
x = torch.tensor([[10.0, -5.0, 2.0]])
loss = (model(x) ** 2).sum()
loss.backward()
total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(f"{total.item():.3f}")
norm_after = torch.sqrt(sum((p.grad ** 2).sum() for p in model.parameters()))
print(f"{norm_after.item():.4f}")
torch.nn.utils.clip_grad_value_(model.parameters(), 0.1)
print(model.weight.grad.abs().max().item() <= 0.1)
