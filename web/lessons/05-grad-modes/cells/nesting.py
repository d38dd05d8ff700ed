import kael

x = kael.tensor([1.0, 2.0], requires_grad=True)
with kael.no_grad():
    print("outer:", kael.is_grad_enabled())
    with kael.enable_grad():
        y = x * 3
        print("inner:", kael.is_grad_enabled(), "| y.grad_fn:", y.grad_fn.name())
    print("outer again:", kael.is_grad_enabled())
try:
    with kael.no_grad():
        raise ValueError("boom")
except ValueError:
    pass
print("after an exception inside no_grad:", kael.is_grad_enabled())
