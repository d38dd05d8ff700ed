import kael

x = kael.tensor([1.0, 2.0], requires_grad=True)
a = x * 2
b = x * 3
loss = (a + b).sum()

# Count, for every node reachable from loss.grad_fn, how many edges lead into it.
count, seen, stack = {}, {loss.grad_fn}, [loss.grad_fn]
while stack:
    node = stack.pop()
    for nxt, _ in node.next_functions:
        if nxt is None:
            continue
        count[nxt] = count.get(nxt, 0) + 1
        if nxt not in seen:
            seen.add(nxt)
            stack.append(nxt)
names = {a.grad_fn: "MulBackward(a)", b.grad_fn: "MulBackward(b)"}
for node, n in count.items():
    print(f"{names.get(node, node.name()):15} {n}")
