# Device-agnostic code: it runs on the GPU when there is one, else on the CPU.
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
print(device)
model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1)).to(device)
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (1 if i % 2 else -1))
x = torch.tensor([[1.0, 2.0], [0.5, -1.0]], device=device)
out = model(x.to(device))
print(out.device.type, out.cpu().detach())
t = torch.ones(2).to(torch.device(device))
print(t.device.type == device)
