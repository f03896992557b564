import torch
from torch.func import grad_and_value, grad
def loss_fn(w, x):
    pred = x @ w
    loss = (pred ** 2).mean()
    return loss, pred
w = torch.tensor([1., -1.])
x = torch.tensor([[1., 2.], [3., 4.]])
g, (loss, pred) = grad_and_value(loss_fn, has_aux=True)(w, x)
print(g, loss, pred)
g2, aux = grad(loss_fn, has_aux=True)(w, x)
print(g2, aux)
