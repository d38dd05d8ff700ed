# A causal mask: tril, masked_fill with -inf, softmax over what each position may see.
import torch
import torch.nn.functional as F

T = 4
scores = torch.linspace(-1, 1, T * T).reshape(T, T)
mask = torch.tril(torch.ones(T, T))
print(mask)
att = scores.masked_fill(mask == 0, float("-inf"))
att = F.softmax(att, dim=-1)
print(att)
print(att.sum(dim=-1))
print(torch.triu(torch.ones(3, 3), diagonal=1))
