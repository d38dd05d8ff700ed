# A Dataset and a DataLoader: batches for a training loop.
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset


class Line(Dataset):
    def __init__(self, n):
        self.x = torch.linspace(0, 1, n).unsqueeze(1)
        self.y = 2 * self.x + 1

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


ds = Line(10)
print(len(ds), ds[3][0].shape)
loader = DataLoader(ds, batch_size=4, shuffle=False)
print(len(loader))
for xb, yb in loader:
    print(xb.shape, yb.squeeze(1))
model = torch.nn.Linear(1, 1)
with torch.no_grad():
    model.weight.fill_(0.0)
    model.bias.fill_(0.0)
opt = torch.optim.SGD(model.parameters(), lr=0.3)
for epoch in range(20):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * len(xb)
    if epoch % 5 == 4:
        print(epoch, round(total / len(ds), 5))
td = TensorDataset(torch.arange(6.0), torch.arange(6))
print([b[1].tolist() for b in DataLoader(td, batch_size=4)])
