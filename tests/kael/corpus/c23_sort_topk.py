# Ordering: sort, argsort, topk, cumsum, and top-k accuracy.
import torch

scores = torch.tensor([[0.1, 0.7, 0.2, 0.9], [0.5, 0.3, 0.8, 0.05]])
vals, idx = torch.sort(scores, dim=1, descending=True)
print(vals, idx)
print(scores.argsort(dim=1))
top = scores.topk(2, dim=1)
print(top.values, top.indices)
target = torch.tensor([3, 1])
hit = (top.indices == target.unsqueeze(1)).any(dim=1)
print(hit, hit.float().mean().item())
print(torch.cumsum(scores, dim=1))
probs = torch.tensor([0.1, 0.4, 0.2, 0.3])
sorted_p, order = probs.sort(descending=True)
print(sorted_p.cumsum(0), order)
