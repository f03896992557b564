import torch
x = torch.tensor([1., 2., 3.], requires_grad=True)
y = x ** 2 + x.sin()
I_N = torch.eye(3)
jac, = torch.autograd.grad(y, x, I_N, is_grads_batched=True)
print(jac)
def get_vjp(v):
    return torch.autograd.grad(y, x, v, retain_graph=True)
print(torch.stack([get_vjp(v)[0] for v in I_N]))
