import torch
def f(x):
    return torch.stack([x[0] ** 2 * x[1], 5 * x[0] + torch.sin(x[1])])
x = torch.tensor([1., 2.], requires_grad=True)
y = f(x)
rows = []
for i in range(2):
    g, = torch.autograd.grad(y[i], x, retain_graph=True)
    rows.append(g)
J = torch.stack(rows)
print(J)
print(torch.autograd.functional.jacobian(f, x))
