import kael


class Scale(kael.autograd.Function):
    """y = x * w; dx = g * w (w is a constant here: no gradient)."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(w)  # saved with w's version: 0
        return x * w

    @staticmethod
    def backward(ctx, g):
        (w,) = ctx.saved_tensors  # checks the version
        return g * w, None


x = kael.tensor([3.0, 4.0], requires_grad=True)
w = kael.tensor([1.0, 2.0])
y = Scale.apply(x, w)
w.mul_(10)  # an in-place write: w's version is now 1
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
