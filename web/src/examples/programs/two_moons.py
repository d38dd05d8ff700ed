# Train a small MLP on two moons. The Plot tab draws the loss as it falls, by itself: each
# opt.step() after loss.backward() is a point (no plotting code). playground.boundary asks it
# to shade what the model predicts over the moons too, redrawn as it learns.
import math

import kael
import playground
from kael import nn

kael.manual_seed(0)
N = 128
t = kael.rand(N) * math.pi
upper = kael.stack([kael.cos(t), kael.sin(t)], dim=1)
lower = kael.stack([1 - kael.cos(t), 0.5 - kael.sin(t)], dim=1)
X = kael.cat([upper[: N // 2], lower[N // 2 :]]) + kael.randn(N, 2) * 0.1
Y = kael.cat([kael.zeros(N // 2), kael.ones(N // 2)])

model = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 1))
opt = kael.optim.Adam(model.parameters(), lr=0.05)
playground.boundary(model, X, Y)  # one logit per point: class 1 where it is above 0

steps = 120
for step in range(steps):
    logits = model(X).reshape(-1)
    loss = nn.functional.binary_cross_entropy_with_logits(logits, Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    playground.progress(step + 1, steps, "training steps")
    if step % 20 == 0 or step == steps - 1:
        with kael.no_grad():
            accuracy = ((model(X).reshape(-1) > 0).float() == Y).float().mean().item()
        print(f"step {step:3d}  loss {loss.item():.4f}  accuracy {accuracy:.2%}")
