import kael

x = kael.tensor([1.0, 2.0], requires_grad=True)
for name, write in [
    ("leaf", lambda: x.add_(1)),
    ("history", lambda: kael.exp(x).add_(1)),
    ("source", lambda: kael.zeros(2).add_(x)),
]:
    try:
        write()
    except RuntimeError as e:
        print(f"{name:8} RuntimeError: {e}")

with kael.no_grad():
    x.add_(1)  # how an optimizer updates a parameter
print("under no_grad:", x.tolist(), "| version", x._version)
