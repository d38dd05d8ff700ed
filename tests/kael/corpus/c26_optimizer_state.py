# Optimizer internals: param_groups, per-group learning rates, state_dict, add_param_group.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
opt = torch.optim.SGD(
    [{"params": model[0].parameters()}, {"params": model[1].parameters(), "lr": 0.01}],
    lr=0.1,
    momentum=0.9,
)
print([g["lr"] for g in opt.param_groups], [g["momentum"] for g in opt.param_groups])
model(torch.ones(1, 2)).sum().backward()
opt.step()
sd = opt.state_dict()
print(sorted(sd["state"].keys()), sd["param_groups"][1]["params"])
print(sorted(sd["state"][0].keys()))
extra = torch.nn.Parameter(torch.zeros(3))
opt.add_param_group({"params": [extra], "lr": 1.0})
print(len(opt.param_groups), opt.param_groups[2]["momentum"])
opt.zero_grad()
print(all(p.grad is None for p in model.parameters()))
for g in opt.param_groups:
    g["lr"] *= 0.5
print([g["lr"] for g in opt.param_groups])
