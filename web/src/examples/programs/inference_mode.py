# no_grad vs inference_mode: both stop recording the graph; inference_mode also makes
# "inference tensors" that can never join a later differentiable computation.
import kael

x = kael.randn(4, requires_grad=True)
with kael.no_grad():
    a = x * 2
with kael.inference_mode():
    b = x * 2
print("no_grad:        requires_grad", a.requires_grad, "| inference tensor", a.is_inference())
print("inference_mode: requires_grad", b.requires_grad, "| inference tensor", b.is_inference())

try:
    (b * x).sum().backward()
except RuntimeError as e:
    print("using an inference tensor where autograd must save it:", str(e).split(".")[0])

c = b.clone()  # a clone made outside inference_mode is an ordinary tensor
(c * x).sum().backward()
print("after clone(): x.grad =", [round(v, 4) for v in x.grad.tolist()])
