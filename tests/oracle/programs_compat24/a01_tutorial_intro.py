import torch
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(a.grad, b.grad)
print(9 * a**2 == a.grad)
print(-2 * b == b.grad)
print(Q.grad_fn.name(), Q.is_leaf, a.is_leaf)
