import torch
v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)
h.remove()
v.grad = None
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)
