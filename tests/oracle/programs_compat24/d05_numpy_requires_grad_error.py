import torch
x = torch.tensor([1., 2.], requires_grad=True)
print(x.detach().numpy())
x.numpy()
