# Splitting and indexing by index tensors: split, chunk, unbind, gather, scatter, one_hot.
import torch
import torch.nn.functional as F

x = torch.arange(12.0).reshape(3, 4)
a, b = x.split(2, dim=1)
print(a, b)
print([c.shape for c in x.chunk(2, dim=0)])
print(x.unbind(0)[1])
idx = torch.tensor([[0, 3], [1, 1], [2, 0]])
print(torch.gather(x, 1, idx))
print(x.index_select(0, torch.tensor([2, 0])))
print(torch.zeros(3, 4).scatter(1, idx, 1.0))
labels = torch.tensor([0, 2, 1, 2])
print(F.one_hot(labels, num_classes=3))
print(x.masked_fill(x > 8, -1.0))
logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.2]], requires_grad=True)
target = torch.tensor([0, 1])
picked = logits.log_softmax(dim=1).gather(1, target.unsqueeze(1))
(-picked.mean()).backward()
print(logits.grad)
