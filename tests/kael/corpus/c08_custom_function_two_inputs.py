# A Function of two inputs: needs_input_grad and a non-tensor argument.
import torch


class ScaledMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.save_for_backward(a, b)
        ctx.scale = scale
        return a * b * scale

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * b * ctx.scale if ctx.needs_input_grad[0] else None
        gb = g * a * ctx.scale if ctx.needs_input_grad[1] else None
        return ga, gb, None


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0])
out = ScaledMul.apply(a, b, 0.5)
out.sum().backward()
print(out, a.grad, b.grad)
a64 = torch.tensor([1.5, -2.0], dtype=torch.float64, requires_grad=True)
b64 = torch.tensor([0.5, 3.0], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(lambda p, q: ScaledMul.apply(p, q, 2.0), (a64, b64)))
