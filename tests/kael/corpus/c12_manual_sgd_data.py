# Linear regression by hand: parameters updated through .data, gradients zeroed by hand.
import torch

xs = torch.linspace(-1, 1, 20).unsqueeze(1)
ys = 3 * xs - 0.5
w = torch.zeros(1, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr = 0.5
for epoch in range(30):
    pred = xs @ w + b
    loss = ((pred - ys) ** 2).mean()
    loss.backward()
    w.data -= lr * w.grad.data
    b.data -= lr * b.grad.data
    w.grad.data.zero_()
    b.grad.data.zero_()
    if epoch % 10 == 0:
        print(epoch, loss.item())
print(w.data, b.data)
