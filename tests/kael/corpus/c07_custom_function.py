# A custom autograd.Function: forward, backward, ctx.save_for_backward, gradcheck.
import torch


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        return grad_output * y


x = torch.tensor([0.0, 1.0, -1.0], requires_grad=True)
y = Exp.apply(x)
print(y)
y.sum().backward()
print(x.grad)
xd = torch.tensor([0.3, -0.7], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(Exp.apply, (xd,)))
