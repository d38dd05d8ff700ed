# Saving and loading a state_dict: the usual checkpoint of model and optimizer.
import os
import tempfile

import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
model(torch.ones(2, 3)).sum().backward()
opt.step()
print(list(model.state_dict().keys()))
path = os.path.join(tempfile.mkdtemp(), "checkpoint.pt")
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 7}, path)
ckpt = torch.load(path)
restored = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
restored.load_state_dict(ckpt["model"])
opt2 = torch.optim.Adam(restored.parameters(), lr=0.01)
opt2.load_state_dict(ckpt["optimizer"])
x = torch.linspace(-1, 1, 6).reshape(2, 3)
print(torch.equal(model(x), restored(x)), ckpt["epoch"])
print(sorted(ckpt["optimizer"]["state"][0].keys()))
print(opt2.param_groups[0]["lr"])
