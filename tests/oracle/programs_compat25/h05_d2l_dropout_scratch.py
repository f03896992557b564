import torch
torch.manual_seed(0)
def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    if dropout == 0:
        return X
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)
X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print(dropout_layer(X, 0.))
print(dropout_layer(X, 0.5))
print(dropout_layer(X, 1.))
W = torch.ones(8, requires_grad=True)
out = dropout_layer(X * W, 0.5).sum()
out.backward()
print(W.grad)
drop = torch.nn.Dropout(0.5)
print(drop(torch.ones(6)))
drop.eval()
print(drop(torch.ones(6)))
