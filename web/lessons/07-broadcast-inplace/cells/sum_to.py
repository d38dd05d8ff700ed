import kael

g = kael.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # a gradient of shape [2, 3]
# undo a broadcast [3] -> [2, 3]: sum away the added leading axis
print("to [3]:   ", g.sum(0).tolist())
# undo [2, 1] -> [2, 3]: sum the stretched axis, keeping it
print("to [2, 1]:", g.sum(1, keepdim=True).tolist())
# undo [] -> [2, 3]: sum everything
print("to []:    ", g.sum().item())
