import torch
x = torch.tensor([0., 1., 2.], requires_grad=True)
y = torch.log(x)
print(y)
z = torch.nan_to_num(y, neginf=-100.)
z.sum().backward()
print(z, x.grad)
