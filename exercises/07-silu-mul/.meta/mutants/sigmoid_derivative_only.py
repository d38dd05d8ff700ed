"""Mutant: differentiates silu as if it were sigmoid times a constant: d gate = g * up * s,
missing the (1 + gate * (1 - s)) factor."""

import kael


class SiluMul(kael.autograd.Function):
    @staticmethod
    def forward(ctx, gate, up):
        ctx.save_for_backward(gate, up)
        return gate * gate.sigmoid() * up

    @staticmethod
    def backward(ctx, grad_out):
        gate, up = ctx.saved_tensors
        sig = gate.sigmoid()
        silu = gate * sig
        d_gate = grad_out * up * sig
        d_up = grad_out * silu
        return d_gate, d_up


def silu_mul(gate, up):
    return SiluMul.apply(gate, up)
