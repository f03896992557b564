import torch
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
x = torch.randn(10, 3)
y = x @ torch.tensor([1., 2., 3.])
for step in range(30):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w.sub_(0.1 * w.grad)
    w.grad.zero_()
    if step % 10 == 0:
        print(f"step {step}: loss={loss:.5f}")
print(w)
