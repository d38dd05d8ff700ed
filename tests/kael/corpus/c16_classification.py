# Classification: logits, CrossEntropyLoss, Adam, accuracy.
import torch
import torch.nn as nn

x = torch.stack([torch.linspace(-2, 2, 30), torch.linspace(2, -2, 30).sin()], dim=1)
labels = (x[:, 0] + x[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.6, 0.7, p.numel()).reshape(p.shape).cos() * (0.5 if i % 2 else 1.0))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.CrossEntropyLoss()
for step in range(60):
    opt.zero_grad()
    logits = model(x)
    loss = loss_fn(logits, labels)
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(step, round(loss.item(), 4))
acc = (model(x).argmax(dim=1) == labels).float().mean()
print("accuracy", acc.item())
