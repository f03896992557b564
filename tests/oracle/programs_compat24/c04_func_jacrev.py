import torch
from torch.func import jacrev, jacfwd, vmap, hessian
torch.manual_seed(0)
D = 4
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)
def predict(weight, bias, x):
    return torch.nn.functional.linear(x, weight, bias).tanh()
jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print(jacobian.shape)
jf = jacfwd(predict, argnums=2)(weight, bias, x)
print(torch.allclose(jacobian, jf, atol=1e-6))
ft_jacobian, ft_jacobian_b = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jacobian.shape, ft_jacobian_b.shape)
batch = torch.randn(3, D)
compute_batch_jacobian = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))
print(compute_batch_jacobian(weight, bias, batch).shape)
h = hessian(lambda x: x.sin().sum())(x)
print(torch.allclose(h, torch.diag(-x.sin())))
