import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x.pow(3)
print(y.grad_fn._saved_self, y.grad_fn._saved_exponent)
print(y.grad_fn._saved_self is x)
z = x.exp()
print(z.grad_fn._saved_result.equal(z), z.grad_fn._saved_result is z)
y.sum().backward()
print(x.grad)
y.grad_fn._saved_self
