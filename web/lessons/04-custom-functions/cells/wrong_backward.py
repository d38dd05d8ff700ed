import kael


class Square(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * x  # wrong: d(x*x)/dx is 2x


x = kael.tensor([1.0, -2.0, 3.0], dtype=kael.float64, requires_grad=True)
try:
    kael.autograd.gradcheck(Square.apply, (x,))
except Exception as e:
    print(type(e).__name__ + ":", str(e).split(":")[0])
print("raise_exception=False:", kael.autograd.gradcheck(Square.apply, (x,), raise_exception=False))
