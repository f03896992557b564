import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x * 3
def show(g):
    print("grad of y:", g)
y.register_hook(show)
z = (y ** 2).sum()
z.backward()
print(x.grad)
