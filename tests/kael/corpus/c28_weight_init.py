# Initialising weights: nn.init functions and Module.apply.
import torch
import torch.nn as nn


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.25)
        nn.init.zeros_(m.bias)


model = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
model.apply(init_weights)
print(model[0].weight, model[2].bias)
print(model(torch.ones(1, 3)))
w = torch.empty(2, 3)
nn.init.ones_(w)
print(w.sum().item())
print(nn.init.calculate_gain("relu"), nn.init.calculate_gain("tanh"))
