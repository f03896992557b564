import torch
torch.manual_seed(0)
n_train, num_inputs = 20, 10
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05
X = torch.randn(n_train, num_inputs)
y = X @ true_w + true_b + torch.normal(0, 0.01, (n_train, 1))
def init_params():
    w = torch.normal(0, 1, size=(num_inputs, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    return [w, b]
def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2
def train(lambd):
    w, b = init_params()
    for epoch in range(10):
        l = ((X @ w + b - y) ** 2 / 2).mean() + lambd * l2_penalty(w)
        l.backward()
        with torch.no_grad():
            for p in (w, b):
                p -= 0.05 * p.grad
                p.grad.zero_()
    print('L2 norm of w:', torch.norm(w).item())
train(lambd=0)
train(lambd=3)
