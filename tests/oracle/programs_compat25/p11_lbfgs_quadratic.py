import torch
x = torch.tensor([3.0, -2.0], requires_grad=True)
A = torch.tensor([[3., 1.], [1., 2.]])
b = torch.tensor([1., 1.])
opt = torch.optim.LBFGS([x], lr=1, max_iter=20)
def closure():
    opt.zero_grad()
    loss = 0.5 * x @ A @ x - b @ x
    loss.backward()
    return loss
opt.step(closure)
print(x.detach().round(decimals=4))
print(torch.linalg.solve(A, b))
