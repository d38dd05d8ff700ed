# A custom nn.Module: submodules, parameters, named_parameters, parameter count.
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, n_in, n_hidden, n_out):
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.act = nn.Tanh()
        self.fc2 = nn.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


model = MLP(4, 8, 2)
print(model)
for name, p in model.named_parameters():
    print(name, tuple(p.shape), p.requires_grad)
print(sum(p.numel() for p in model.parameters()))
print(model(torch.zeros(5, 4)).shape)
print(len(list(model.children())), model.training, model.eval().training)
