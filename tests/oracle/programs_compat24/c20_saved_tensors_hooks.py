import torch
def pack(x):
    print("packing", x)
    return x
def unpack(x):
    print("unpacking", x)
    return x
a = torch.ones(2, requires_grad=True)
b = torch.tensor([2., 3.], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = a * b
y.sum().backward()
print(a.grad)
