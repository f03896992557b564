import torch
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.5, weight_decay=0.01)
for i in range(5):
    opt.zero_grad()
    loss = (w ** 2).sum()
    loss.backward()
    opt.step()
    print(i, w.data, loss.item())
print(opt.param_groups[0]['lr'], opt.state_dict()['param_groups'][0]['momentum'])
