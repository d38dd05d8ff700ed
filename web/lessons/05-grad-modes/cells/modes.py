import kael

x = kael.randn(4, requires_grad=True)
with kael.no_grad():
    a = x * 2
with kael.inference_mode():
    b = x * 2
print("no_grad:        requires_grad", a.requires_grad, "| grad_fn", a.grad_fn, "| inference", a.is_inference())
print("inference_mode: requires_grad", b.requires_grad, "| grad_fn", b.grad_fn, "| inference", b.is_inference())
print("grad mode back on:", kael.is_grad_enabled())
