import torch
a = torch.tensor(2., requires_grad=True)
b = torch.tensor(3., requires_grad=True)
c = a * b + b ** 2
c.backward(inputs=[a], retain_graph=True)
print(a.grad, b.grad)
c.backward(inputs=[b])
print(a.grad, b.grad)
