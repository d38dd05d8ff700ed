import kael


class SiluMul(kael.autograd.Function):
    @staticmethod
    def forward(ctx, gate, up):
        ctx.save_for_backward(gate, up)  # only the inputs: backward recomputes the rest
        return kael.nn.functional.silu(gate) * up

    @staticmethod
    def backward(ctx, grad_out):
        gate, up = ctx.saved_tensors
        sig = kael.sigmoid(gate)
        d_gate = grad_out * up * sig * (1 + gate * (1 - sig))
        d_up = grad_out * gate * sig
        return d_gate, d_up


kael.manual_seed(0)
g = kael.randn(4, 8, dtype=kael.float64, requires_grad=True)
u = kael.randn(4, 8, dtype=kael.float64, requires_grad=True)
print("gradcheck:", kael.autograd.gradcheck(SiluMul.apply, (g, u)))

y = SiluMul.apply(g, u)
print("matches silu(g) * u:", kael.allclose(y, kael.nn.functional.silu(g) * u))
print("one node:", y.grad_fn.name(), "| next:", [n.name() for n, _ in y.grad_fn.next_functions])
