import torch
torch.manual_seed(0)
w = torch.randn(4, requires_grad=True)
w.register_hook(lambda g: g.clamp(-0.5, 0.5))
loss = (w * torch.tensor([1., -2., 0.3, 5.])).sum()
loss.backward()
print(w.grad)
