"""SwiGLU's ``silu(gate) * up`` as one fused Function that saves only its two inputs."""

import kael


class SiluMul(kael.autograd.Function):
    """y = silu(gate) * up = gate * sigmoid(gate) * up

    d gate = g * up * s * (1 + gate * (1 - s))   with s = sigmoid(gate)
    d up   = g * silu(gate)
    Save only gate and up; recompute s and silu in backward."""

    @staticmethod
    def forward(ctx, gate, up):
        raise NotImplementedError("implement SiluMul.forward: save gate and up, return silu(gate) * up")

    @staticmethod
    def backward(ctx, grad_out):
        raise NotImplementedError("implement SiluMul.backward: recompute sigmoid(gate), return d_gate, d_up")


def silu_mul(gate, up):
    """``SiluMul.apply(gate, up)``."""
    raise NotImplementedError("implement silu_mul(gate, up): return SiluMul.apply(gate, up)")
