import torch
x = torch.tensor([1.], requires_grad=True)
is_train = False
with torch.set_grad_enabled(is_train):
    y = x * 2
print(y.requires_grad)
torch.set_grad_enabled(True)
y = x * 2
print(y.requires_grad)
torch.set_grad_enabled(False)
y = x * 2
print(y.requires_grad)
torch.set_grad_enabled(True)
print(torch.is_grad_enabled())
