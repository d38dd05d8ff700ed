# A hook that runs once a parameter's gradient is accumulated (an optimizer step per parameter).
import torch

w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
log = []


def step_now(p):
    log.append(p.grad.clone())
    with torch.no_grad():
        p -= 0.1 * p.grad
    p.grad = None


w.register_post_accumulate_grad_hook(step_now)
for _ in range(3):
    (w * w).sum().backward()
print(w.detach(), len(log), log[0])
