import kael

x = kael.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
with kael.inference_mode():
    b = x * 2

try:
    (b * x).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])

a = b.clone()  # outside inference_mode: an ordinary tensor
(a * x).sum().backward()
print("after clone(): x.grad =", x.grad.tolist())
