import torch
with torch.inference_mode():
    t = torch.randn(2)
t.requires_grad_()
