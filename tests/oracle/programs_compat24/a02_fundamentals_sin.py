import torch
import math
a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
print(a[:4])
b = torch.sin(a)
print(b[:3])
c = 2 * b
d = c + 1
out = d.sum()
print(out)
print('d:')
print(d.grad_fn)
print(d.grad_fn.next_functions)
print(d.grad_fn.next_functions[0][0].next_functions)
print('c:')
print(c.grad_fn)
print('a:')
print(a.grad_fn)
out.backward()
print(a.grad[:5])
