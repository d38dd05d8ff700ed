# AdamW against Adam: decoupled weight decay shrinks weights even without gradient signal.
import torch

for name in ["Adam", "AdamW"]:
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
    opt = getattr(torch.optim, name)([w], lr=0.1, weight_decay=0.1)
    for step in range(10):
        opt.zero_grad()
        loss = ((w - 1) ** 2).sum()
        loss.backward()
        opt.step()
    print(name, [round(v, 4) for v in w.tolist()])
