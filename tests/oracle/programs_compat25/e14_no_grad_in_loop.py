import torch
torch.manual_seed(1)
w = torch.randn(2, requires_grad=True)
x = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])
t = torch.tensor([1., 0., -1.])
for it in range(4):
    loss = ((x @ w - t) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
        w.grad.zero_()
    print(it, round(loss.item(), 5), w.requires_grad, w.is_leaf)
with torch.no_grad():
    pred = x @ w
print(pred.requires_grad, pred)
