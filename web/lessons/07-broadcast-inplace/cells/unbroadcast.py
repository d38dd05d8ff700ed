import kael

h = kael.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # [2, 3] activations
bias = kael.zeros(3, requires_grad=True)  # [3], broadcast over the rows
scale = kael.ones(2, 1, requires_grad=True)  # [2, 1], broadcast over the columns
((h + bias) * scale).sum().backward()
print("bias.grad ", bias.grad.tolist(), "shape", list(bias.grad.shape))
print("scale.grad", scale.grad.tolist(), "shape", list(scale.grad.shape))
