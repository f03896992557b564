import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = torch.tensor(x)
print(y, y.requires_grad)
z = x.clone().detach().requires_grad_(True)
print(z, z.is_leaf)
