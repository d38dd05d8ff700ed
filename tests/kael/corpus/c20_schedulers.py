# Learning-rate schedulers: StepLR, CosineAnnealingLR, LambdaLR.
import torch

w = torch.nn.Parameter(torch.ones(2))
for name in ["step", "cosine", "lambda"]:
    opt = torch.optim.SGD([w], lr=0.1)
    if name == "step":
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    elif name == "cosine":
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6)
    else:
        sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
    lrs = []
    for epoch in range(6):
        opt.step()
        sched.step()
        lrs.append(round(sched.get_last_lr()[0], 6))
    print(name, lrs, opt.param_groups[0]["lr"] == sched.get_last_lr()[0])
