import torch
from torch.func import vjp, jvp, linearize
x = torch.tensor([0.5, 1.0, 2.0])
out, vjp_fn = vjp(torch.sin, x)
print(out)
print(vjp_fn(torch.ones(3)))
primal_out, tangent_out = jvp(torch.exp, (x,), (torch.ones(3),))
print(primal_out, tangent_out)
out, jvp_fn = linearize(torch.sin, x)
print(jvp_fn(torch.tensor([1., 0., 0.])))
