import torch
torch.manual_seed(0)
def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdims=True)
    return X_exp / partition
X = torch.rand((2, 5))
X_prob = softmax(X)
print(X_prob, X_prob.sum(1))
y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
print(y_hat[[0, 1], y])
def cross_entropy(y_hat, y):
    return -torch.log(y_hat[list(range(len(y_hat))), y]).mean()
print(cross_entropy(y_hat, y))
def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())
print(accuracy(y_hat, y) / len(y))
W = torch.normal(0, 0.01, size=(4, 3), requires_grad=True)
b = torch.zeros(3, requires_grad=True)
data = torch.randn(12, 4)
labels = torch.randint(0, 3, (12,))
for epoch in range(3):
    l = cross_entropy(softmax(data @ W + b), labels)
    l.backward()
    with torch.no_grad():
        W -= 0.1 * W.grad
        b -= 0.1 * b.grad
        W.grad.zero_()
        b.grad.zero_()
    print(f"epoch {epoch + 1}, loss {l:f}")
