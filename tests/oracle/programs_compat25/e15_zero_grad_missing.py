import torch
x = torch.tensor([2.], requires_grad=True)
for i in range(3):
    y = x ** 2
    y.backward()
    print(x.grad.item())
for i in range(3):
    if x.grad is not None:
        x.grad.zero_()
    y = x ** 2
    y.backward()
    print(x.grad.item())
