import torch
import torch.autograd.forward_ad as fwAD
primal = torch.tensor([0.5, 1.0, 2.0])
tangent = torch.tensor([1.0, 0.0, 2.0])
def fn(x, y):
    return x ** 2 + y
y = torch.tensor([1., 1., 1.])
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    print(fwAD.unpack_dual(dual_input).tangent is tangent)
    dual_output = fn(dual_input, y)
    jvp = fwAD.unpack_dual(dual_output).tangent
    p, t = fwAD.unpack_dual(dual_output)
print(jvp)
print(p, t)
print(fwAD.unpack_dual(dual_output).tangent)
