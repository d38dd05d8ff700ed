# XOR: a small MLP with tanh trained by SGD with momentum.
import torch
import torch.nn as nn

X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
net = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1), nn.Sigmoid())
with torch.no_grad():
    net[0].weight.copy_(torch.tensor([[1.0, -1.0], [-1.0, 1.0], [0.5, 0.5], [1.5, 1.2]]))
    net[0].bias.copy_(torch.tensor([-0.5, -0.5, 0.1, -1.0]))
    net[2].weight.copy_(torch.tensor([[1.0, 1.0, -0.5, -1.0]]))
    net[2].bias.fill_(0.0)
opt = torch.optim.SGD(net.parameters(), lr=0.5, momentum=0.9)
loss_fn = nn.BCELoss() if hasattr(nn, "BCELoss") else None
for epoch in range(200):
    opt.zero_grad()
    p = net(X)
    loss = -(Y * p.log() + (1 - Y) * (1 - p).log()).mean()
    loss.backward()
    opt.step()
    if epoch % 50 == 0:
        print(epoch, f"{loss.item():.5f}")
print((net(X) > 0.5).long().squeeze(1).tolist())
