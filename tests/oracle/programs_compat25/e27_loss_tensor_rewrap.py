import torch
w = torch.tensor([1., 2.], requires_grad=True)
pred = (w * 3).sum()
loss = torch.tensor(pred.item() ** 2, requires_grad=True)
loss.backward()
print(loss.grad, w.grad)
loss2 = torch.tensor(pred.item() ** 2)
loss2.backward()
