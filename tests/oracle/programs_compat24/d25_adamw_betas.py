import torch
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
opt = torch.optim.AdamW([w], lr=0.05, betas=(0.9, 0.99), weight_decay=0.1)
for i in range(5):
    opt.zero_grad()
    loss = ((w - 1) ** 2).sum()
    loss.backward()
    opt.step()
print(w)
print(loss)
