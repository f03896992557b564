import random
import torch
import math
class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))
    def forward(self, x, k):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, k):
            y = y + self.e * x ** exp
        return y
torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
ks = [4, 5, 6, 4, 5, 6, 4, 5, 6, 5] * 20
for t, k in enumerate(ks):
    y_pred = model(x, k)
    loss = criterion(y_pred, y)
    if t % 50 == 49:
        print(t, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(model.e)
