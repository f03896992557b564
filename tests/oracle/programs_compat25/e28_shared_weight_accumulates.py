import torch
w = torch.tensor(2., requires_grad=True)
x = torch.tensor([1., 2., 3.])
y = w * x
z = w * y
loss = z.sum()
loss.backward()
print(w.grad)
print(loss.grad_fn.next_functions)
