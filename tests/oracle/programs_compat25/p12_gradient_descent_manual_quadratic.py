import torch
A = torch.tensor([[2., 0.5], [0.5, 1.]])
x = torch.tensor([1., 1.], requires_grad=True)
lr = 0.2
history = []
for i in range(10):
    f = x @ A @ x + torch.tensor([1., -1.]) @ x
    f.backward()
    with torch.no_grad():
        x.sub_(lr * x.grad)
    x.grad.zero_()
    history.append(round(f.item(), 5))
print(history)
print(x)
