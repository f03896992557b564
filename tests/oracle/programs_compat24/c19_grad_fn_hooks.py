import torch
x = torch.tensor([1., 2.], requires_grad=True)
y = x.exp()
z = y.sum()
def pre(grad_outputs):
    print("pre", grad_outputs)
def post(grad_inputs, grad_outputs):
    print("post", grad_inputs, grad_outputs)
y.grad_fn.register_prehook(pre)
y.grad_fn.register_hook(post)
z.backward()
