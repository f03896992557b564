import torch
with torch.inference_mode():
    t = torch.ones(3)
w = torch.ones(3, requires_grad=True)
out = (w * t).sum()
out.backward()
print(w.grad)
t.add_(1)
