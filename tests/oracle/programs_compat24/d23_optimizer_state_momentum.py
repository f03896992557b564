import torch
w = torch.tensor([2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
for i in range(4):
    opt.zero_grad()
    (w ** 2).sum().backward()
    opt.step()
    print(i, round(w.item(), 6), opt.state[w]['momentum_buffer'])
