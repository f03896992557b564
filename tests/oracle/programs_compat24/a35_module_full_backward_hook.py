import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(2, 2)
def bhook(module, grad_input, grad_output):
    print(type(module).__name__, [g.shape if g is not None else None for g in grad_input], grad_output[0])
lin.register_full_backward_hook(bhook)
x = torch.ones(1, 2, requires_grad=True)
lin(x).sum().backward()
print(x.grad)
