# Reshaping: view, reshape, permute, transpose, squeeze/unsqueeze, cat and stack.
import torch

a = torch.arange(12.0)
b = a.view(3, 4)
print(b)
print(b.reshape(2, -1).shape)
print(b.t().shape, b.transpose(0, 1).is_contiguous(), b.is_contiguous())
c = b.unsqueeze(0)
print(c.shape, c.squeeze().shape)
print(b.permute(1, 0)[0])
print(torch.cat([b, b], dim=0).shape, torch.cat([b, b], dim=1).shape)
print(torch.stack([a, a * 2]).shape)
print(b.flatten())
print(b[:, 1:3])
print(b.sum(dim=0), b.sum(dim=1, keepdim=True).shape)
b[0, 0] = 100.0
print(a[0].item())
