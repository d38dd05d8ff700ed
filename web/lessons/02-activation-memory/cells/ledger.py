# Which of the saved tensors are new memory? Weights exist anyway: saving one only keeps a
# reference. The activations (x @ w1 and silu's output) exist only because backward needs them.
N, D, H, F32 = 64, 256, 1024, 4  # the notebook's sizes; float32 is 4 bytes

saved = {
    "X (matmul 1's input)": N * D * F32,
    "W1 (matmul 1's weight)": D * H * F32,
    "x @ w1 (silu's input)": N * H * F32,
    "silu(x @ w1) (matmul 2's input)": N * H * F32,
    "W2 (matmul 2's weight)": H * D * F32,
}
for name, n in saved.items():
    print(f"{name:34} {n:>9,} bytes")
print(f"{len(saved)} tensors, {sum(saved.values()):,} bytes")
print(f"activations alone: {2 * N * H * F32:,} bytes")
