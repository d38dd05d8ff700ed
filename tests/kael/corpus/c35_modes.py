# train() and eval(), Dropout, inference_mode, and a model made of ModuleDict and ParameterList.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleDict({"inp": nn.Linear(2, 3), "out": nn.Linear(3, 1)})
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(3)), nn.Parameter(torch.full((1,), 2.0))])
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        h = self.drop(torch.relu(self.layers["inp"](x)) * self.scales[0])
        return self.layers["out"](h) * self.scales[1]


net = Net()
print([n for n, _ in net.named_parameters()])
net.eval()
print(net.training, net.drop.training)
x = torch.ones(4, 2)
a, b = net(x), net(x)
print(torch.equal(a, b))
with torch.inference_mode():
    y = net(x)
print(y.requires_grad, torch.is_inference_mode_enabled())
net.train()
print(net.training)
