import torch
a = torch.tensor([1., 2., 3.], requires_grad=True)
b = a.detach()
c = a.clone()
d = a.detach().clone()
print(b.requires_grad, c.requires_grad, d.requires_grad)
print(c.grad_fn, b.grad_fn)
b[0] = 10.
print(a)
d[1] = 20.
print(a)
print(b.data_ptr() == a.data_ptr(), d.data_ptr() == a.data_ptr())
