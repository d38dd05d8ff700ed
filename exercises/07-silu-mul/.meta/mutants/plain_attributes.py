"""Mutant: keeps gate and up as ctx attributes instead of ctx.save_for_backward: no version
check, and saved_tensors_hooks never see them."""

import kael


class SiluMul(kael.autograd.Function):
    @staticmethod
    def forward(ctx, gate, up):
        ctx.gate, ctx.up = gate, up
        return gate * gate.sigmoid() * up

    @staticmethod
    def backward(ctx, grad_out):
        gate, up = ctx.gate, ctx.up
        sig = gate.sigmoid()
        silu = gate * sig
        d_gate = grad_out * up * sig * (1 + gate * (1 - sig))
        d_up = grad_out * silu
        return d_gate, d_up


def silu_mul(gate, up):
    return SiluMul.apply(gate, up)
