import torch
from torch import nn
torch.manual_seed(0)
num_inputs, num_outputs, num_hiddens = 6, 3, 8
W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens) * 0.01)
b1 = nn.Parameter(torch.zeros(num_hiddens))
W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs) * 0.01)
b2 = nn.Parameter(torch.zeros(num_outputs))
params = [W1, b1, W2, b2]
def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)
def net(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X @ W1 + b1)
    return H @ W2 + b2
loss = nn.CrossEntropyLoss(reduction='none')
X = torch.randn(10, 6)
y = torch.randint(0, 3, (10,))
updater = torch.optim.SGD(params, lr=0.5)
for epoch in range(5):
    l = loss(net(X), y)
    updater.zero_grad()
    l.mean().backward()
    updater.step()
    print(epoch, f"{l.mean().item():.6f}")
print(relu(torch.tensor([-1., 2.])))
