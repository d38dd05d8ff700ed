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
# Why not 1.0001 ** 20000 = 7.3883? x is float32 (kael's default, as PyTorch's), so the 1.0001
# each step multiplies by is the nearest float32, 1.0001000166: that number to the 20,000th
# power is 7.3908. The 20,000 roundings to float32 along the way move only the 6th digit.
factor = kael.tensor(1.0001).item()  # the float32 the chain really multiplies by
print(f"float32 1.0001 is {factor:.10f}: {factor:.10f} ** 20000 = {factor ** 20_000:.4f}")
print(f"exact   1.0001 ** 20000 = {1.0001 ** 20_000:.4f} (float64 x: kael.tensor(1.0, dtype=kael.float64))")
del y  # frees 20,000 nodes without recursion
print("freed")
