import torch
from torch.autograd.functional import jacobian
def exp_adder(x, y):
    return 2 * x.exp() + 3 * y
inputs = (torch.tensor([0., 1.]), torch.tensor([1., 2.]))
print(jacobian(exp_adder, inputs))
print(jacobian(exp_adder, inputs, vectorize=True))
j = jacobian(lambda x: x ** 2, torch.tensor([1., 2., 3.]), create_graph=True)
print(j.requires_grad, j)
print(jacobian(lambda x: x.sin(), torch.tensor([0., 1.]), strategy="forward-mode", vectorize=True))
