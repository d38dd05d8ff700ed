# A custom autograd.Function: SwiGLU's silu(gate) * up fused into one op that saves only
# its two inputs and recomputes the rest in backward. gradcheck compares the hand-written
# backward with central differences in float64.
import kael
import kael.viz


class SiluMul(kael.autograd.Function):
    @staticmethod
    def forward(ctx, gate, up):
        ctx.save_for_backward(gate, up)  # only the inputs; the intermediates are recomputed
        return kael.nn.functional.silu(gate) * up

    @staticmethod
    def backward(ctx, grad_out):
        gate, up = ctx.saved_tensors
        sig = kael.sigmoid(gate)
        silu = gate * sig
        d_gate = grad_out * up * sig * (1 + gate * (1 - sig))
        d_up = grad_out * silu
        return d_gate, d_up


kael.manual_seed(0)
g = kael.randn(4, 8, dtype=kael.float64, requires_grad=True)
u = kael.randn(4, 8, dtype=kael.float64, requires_grad=True)
print("gradcheck:", kael.autograd.gradcheck(SiluMul.apply, (g, u)))

y = SiluMul.apply(g, u)
ref = kael.nn.functional.silu(g) * u
print("forward matches the reference:", kael.allclose(y, ref))
print("backward node:", y.grad_fn.name())
kael.viz.show(y.sum(), params=dict(gate=g, up=u))
