# A deep chain: 20,000 nodes, one after another. kael's engine and its node destruction
# use explicit stacks, so neither backward nor freeing the graph hits Python's recursion limit.
import sys
import time

import kael

print("recursion limit:", sys.getrecursionlimit())
x = kael.tensor(1.0, requires_grad=True)
start = time.perf_counter()
y = x
for _ in range(20_000):
    y = y * 1.0001
print(f"forward: {time.perf_counter() - start:.2f} s, last node {y.grad_fn.name()}")

start = time.perf_counter()
y.backward()
print(f"backward: {time.perf_counter() - start:.2f} s, x.grad = {x.grad.item():.4f}")
print("expected  1.0001 ** 20000 =", round(1.0001 ** 20_000, 4))
del y  # frees 20,000 nodes without recursion
print("freed")
