import torch
xs = [torch.tensor(float(i), requires_grad=True) for i in range(4)]
total = sum(x ** 2 for x in xs)
print(total)
total.backward()
print([x.grad.item() for x in xs])
