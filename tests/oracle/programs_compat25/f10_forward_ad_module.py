import torch
import torch.nn as nn
import torch.autograd.forward_ad as fwAD
from torch.func import functional_call
torch.manual_seed(0)
model = nn.Linear(3, 2)
x = torch.randn(4, 3)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.ones_like(p) for name, p in params.items()}
with fwAD.dual_level():
    dual_params = {name: fwAD.make_dual(p, tangents[name]) for name, p in params.items()}
    out = functional_call(model, dual_params, x)
    jvp = fwAD.unpack_dual(out).tangent
print(jvp)
print(torch.allclose(jvp, x.sum(dim=1, keepdim=True) + 1, atol=1e-6))
