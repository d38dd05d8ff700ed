# Forward hooks: capture the activations a module produces.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
activations = {}


def save(name):
    def hook(module, inputs, output):
        activations[name] = output.detach()
    return hook


handles = [model[1].register_forward_hook(save("relu")), model[2].register_forward_hook(save("out"))]
model.register_forward_pre_hook(lambda m, args: print("input", tuple(args[0].shape)))
y = model(torch.tensor([[0.5, -1.0], [1.0, 2.0]]))
print(activations["relu"])
print(activations["out"].squeeze(1))
for h in handles:
    h.remove()
activations.clear()
model(torch.zeros(1, 2))
print(len(activations))
