# torch.nn.functional: activations, normalize, pad, losses.
import torch
import torch.nn.functional as F

x = torch.tensor([[-1.0, 0.0, 2.0], [3.0, -0.5, 1.0]])
print(F.relu(x), F.sigmoid(x), F.tanh(x))
print(F.gelu(x), F.silu(x), F.leaky_relu(x, 0.1))
print(F.softmax(x, dim=1))
print(F.normalize(x, dim=1))
print(F.pad(x, (1, 1), value=0.0))
target = torch.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])
print(F.mse_loss(x, target), F.binary_cross_entropy_with_logits(x, target))
print(F.cross_entropy(x, torch.tensor([2, 0])), F.nll_loss(F.log_softmax(x, 1), torch.tensor([1, 1])))
