# The usual training loop: model, loss, optimizer, and the loss printed with a format spec.
import torch
import torch.nn as nn

model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.1, -0.2, 0.3]]))
    model.bias.fill_(0.0)
x = torch.linspace(-1, 1, 24).reshape(8, 3)
y = x.sum(dim=1, keepdim=True) * 0.5 + 1
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(40):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1}: loss {loss:.4f}")
print(f"final {loss.item():.6f}")
print(f"{model.bias.item():.3f}")
