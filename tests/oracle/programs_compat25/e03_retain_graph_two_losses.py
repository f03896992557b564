import torch
x = torch.tensor([0.5, -1.5], requires_grad=True)
h = torch.tanh(x * 3)
loss1 = h.sum()
loss2 = (h ** 2).sum()
loss1.backward(retain_graph=True)
print(x.grad)
loss2.backward()
print(x.grad)
try:
    loss1.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e)[:60])
