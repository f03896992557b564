import torch
import torch.nn.functional as F
from torch.autograd.functional import jacobian
x = torch.tensor([1., 2., 0.5])
J = jacobian(lambda t: F.softmax(t, dim=0), x)
s = F.softmax(x, dim=0)
print(J)
print(torch.allclose(J, torch.diag(s) - torch.outer(s, s)))
print(jacobian(lambda t: F.log_softmax(t, dim=0), x).sum(dim=1))
