import torch
p = torch.tensor([1., 2.], requires_grad=True)
def hook(t):
    print("accumulated", t.grad)
p.register_post_accumulate_grad_hook(hook)
(p * 3).sum().backward()
(p * 3).sum().backward()
