"""LayerNorm as one kael.autograd.Function (reference solution)."""

import kael


class LayerNorm(kael.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        mean = x.mean(-1, keepdim=True)
        centered = x - mean
        var = (centered * centered).mean(-1, keepdim=True)  # two passes: stable in float32
        rstd = (var + eps).rsqrt()
        xhat = centered * rstd
        ctx.save_for_backward(xhat, rstd, weight)
        return xhat * weight + bias

    @staticmethod
    def backward(ctx, g):
        xhat, rstd, weight = ctx.saved_tensors
        gxhat = g * weight
        grad_x = rstd * (
            gxhat - gxhat.mean(-1, keepdim=True) - xhat * (gxhat * xhat).mean(-1, keepdim=True)
        )
        grad_w = kael.sum_to(g * xhat, weight.shape)
        grad_b = kael.sum_to(g, weight.shape)
        return grad_x, grad_w, grad_b, None


def layer_norm(x, weight, bias, eps=1e-5):
    return LayerNorm.apply(x, weight, bias, eps)
