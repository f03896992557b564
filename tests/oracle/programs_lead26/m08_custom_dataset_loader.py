import torch
from torch.utils.data import Dataset, DataLoader, Sampler
torch.manual_seed(0)
class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i], self.x[i] ** 2
ds = Squares(10)
print(len(ds), ds[3])
for xb, yb in DataLoader(ds, batch_size=4, shuffle=True):
    print(xb, yb)
class Evens(Sampler):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return iter(range(0, self.n, 2))
    def __len__(self):
        return self.n // 2
print([b.tolist() for b, _ in DataLoader(ds, batch_size=3, sampler=Evens(10))])
w = torch.zeros(1, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.01)
for epoch in range(2):
    for xb, yb in DataLoader(ds, batch_size=5, shuffle=True):
        loss = ((w * xb - yb) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, loss.item())
