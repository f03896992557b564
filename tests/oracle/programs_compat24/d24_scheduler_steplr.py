import torch
w = torch.tensor([1.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=1.0)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
for epoch in range(5):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
    sched.step()
    print(epoch, sched.get_last_lr(), w.item())
