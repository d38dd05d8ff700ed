# float64 models: .double() keeps the parameters, gradcheck on a layer.
import torch
import torch.nn as nn

model = nn.Linear(3, 2)
params_before = list(model.parameters())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model.double()
print(model.weight.dtype, all(a is b for a, b in zip(params_before, model.parameters())))
x = torch.linspace(-1, 1, 6, dtype=torch.float64).reshape(2, 3)
w0 = model.weight.clone()
model(x).sum().backward()
opt.step()
print(torch.equal(w0, model.weight))
inp = torch.tensor([[0.1, 0.2, 0.3]], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(model, (inp,)))
print(torch.tensor([1.0]).dtype, torch.tensor([1.0], dtype=torch.double).dtype)
