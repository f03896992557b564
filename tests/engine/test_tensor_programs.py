"""Semantics of gradcli/engine/tensor.py (a Tensor's members (leaf state, retain_grad, .grad,
detach and .data, conversions, metadata), in-place methods and version counters, item
assignment, broadcasting's gradients), pinned by small programs and what real PyTorch 2.x
printed for them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("leaf_members", """
x = torch.tensor(np.array([1.0, 2.0]), requires_grad=True)
print(repr(x))
a = torch.tensor(1.0)
print((a.requires_grad, a.grad, a.grad_fn, a.is_leaf))
a.requires_grad = True
print(repr(a))
print(a.requires_grad_(False) is a, a.requires_grad)
""")

program("retain_grad", """
x = torch.tensor([2.0], requires_grad=True)
y = x ** 2
print(y.retains_grad, x.retains_grad)
y.retain_grad()
z = y * 3
z.backward()
print(y.grad, y.retains_grad, x.grad)
c = torch.tensor([1.0])
attempt(lambda: c.retain_grad())
x.retain_grad()
print(x.retains_grad)
""")

program("nonleaf_grad_warning", """
x = torch.tensor([2.0], requires_grad=True)
y = x ** 2
z = y + 1
z.backward()
print(x.grad)
print(y.grad)
""")

program("requires_grad_errors", """
attempt(lambda: torch.tensor([1, 2]).requires_grad_())
i = torch.tensor([1, 2])
attempt(lambda: setattr(i, "requires_grad", True))
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
attempt(lambda: y.requires_grad_(False))
print(y.requires_grad_(True) is y)
b = torch.tensor([True]).requires_grad_(False)
print(b.requires_grad)
""")

program("detach_and_data", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
d = y.detach()
print(repr(d), d.requires_grad, d.grad_fn, d.is_leaf)
d.mul_(10)
print(y)
y2 = x * 3
y2.detach_()
print(repr(y2), y2.is_leaf, y2.grad_fn)
print(repr(x.data), x.data.requires_grad)
x.data.mul_(2)
print(x)
x.data = torch.tensor([5.0, 6.0])
print(x)
""")

program("conversions_to_python", """
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
print(x.sum().item(), type(x.sum().item()).__name__)
print(x.tolist())
attempt(lambda: x.item())
attempt(lambda: x.numpy())
attempt(lambda: np.asarray(x))
print(repr(x.detach().numpy()))
print(repr(np.asarray(x.detach())))
print(repr(torch.tensor([1, 2]).numpy()))
print(float(torch.tensor(2.5)), int(torch.tensor(3.7)))
""")

program("metadata", """
x = torch.zeros(2, 3)
print(x.size(), x.shape, x.dim(), x.numel(), x.dtype, x.size(1), x.size(-1), x.ndim)
print(x.shape[0], len(x), x.T.shape)
print(x.float().dtype, x.double().dtype, torch.tensor([1, 2]).float())
attempt(lambda: x.size(2))
""", requires=("T",))

program("inplace_version_errors", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt(lambda: x.add_(1))
with torch.no_grad():
    x.add_(1)
print(x)
y = x * 1
y.add_(1)
print(y, y.is_leaf)
z = y.exp()
y.mul_(2)
attempt(lambda: z.sum().backward())
a = x * 1
b = a * a
a.add_(1)
attempt(lambda: b.sum().backward())
c = torch.tensor([1.0, 2.0])
p = x * c
c.add_(1)
attempt(lambda: p.sum().backward())
q = x.sin()
q += 1
print(q)
q *= 2
print(q)
q.sum().backward()
print(x.grad)
""")

program("inplace_methods", """
t = torch.tensor([1.0, -2.0, 3.0])
print(t.zero_(), t.fill_(2.0), t.add_(1), t.sub_(0.5), t.mul_(2), t.div_(5))
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 1
y.fill_(3.0)
print(y)
y.sum().backward()
print(x.grad)
""", requires=("fill_",))

program("broadcast_gradients", """
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)
s = torch.tensor(2.0, requires_grad=True)
c = torch.tensor([[1.0], [2.0]], requires_grad=True)
((a * b + c) * s).sum().backward()
print(a.grad)
print(b.grad)
print(c.grad)
print(s.grad)
""")

program("factory_requires_grad_error", """
attempt(lambda: torch.tensor([1, 2], requires_grad=True))
""")

program("item_assignment", """
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
d = y.detach()
d[0] = 10.0
print(y)
y[1] = 0.0
print(y)
y.sum().backward()
print(x.grad)
""", requires=("__setitem__",))

program("version_numbers", """
x = torch.ones(3)
print(x._version, type(x._version).__name__)
x.add_(1)
v = x[0:2]
v.mul_(2)
x[2] = 5.
print(x._version, v._version, (x * 2)._version)
torch.autograd.graph.increment_version(v)
print(x._version)
""")


EXPECTED = {
    'leaf_members': (
        'tensor([1., 2.], dtype=torch.float64, requires_grad=True)\n'
        '(False, None, None, True)\n'
        'tensor(1., requires_grad=True)\n'
        'True False'
    ),
    'retain_grad': (
        'False False\n'
        'tensor([3.]) True tensor([12.])\n'
        "RuntimeError: can't retain_grad on Tensor that has requires_grad=False\n"
        'False'
    ),
    'nonleaf_grad_warning': (
        'tensor([4.])\n'
        "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)\n"
        'None'
    ),
    'requires_grad_errors': (
        'RuntimeError: only Tensors of floating point dtype can require gradients\n'
        'RuntimeError: only Tensors of floating point and complex dtype can require gradients\n'
        "RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().\n"
        'True\n'
        'False'
    ),
    'detach_and_data': (
        'tensor([2., 4.]) False None True\n'
        'tensor([20., 40.], grad_fn=<MulBackward0>)\n'
        'tensor([3., 6.]) True None\n'
        'tensor([1., 2.]) False\n'
        'tensor([2., 4.], requires_grad=True)\n'
        'tensor([5., 6.], requires_grad=True)'
    ),
    'conversions_to_python': (
        '10.0 float\n'
        '[[1.0, 2.0], [3.0, 4.0]]\n'
        'RuntimeError: a Tensor with 4 elements cannot be converted to Scalar\n'
        "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.\n"
        "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.\n"
        'array([[1., 2.],\n'
        '       [3., 4.]], dtype=float32)\n'
        'array([[1., 2.],\n'
        '       [3., 4.]], dtype=float32)\n'
        'array([1, 2])\n'
        '2.5 3'
    ),
    'metadata': (
        'torch.Size([2, 3]) torch.Size([2, 3]) 2 6 torch.float32 3 3 2\n'
        '2 2 torch.Size([3, 2])\n'
        'torch.float32 torch.float64 tensor([1., 2.])\n'
        'IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 2)'
    ),
    'inplace_version_errors': (
        'RuntimeError: a leaf Variable that requires grad is being used in an in-place operation.\n'
        'tensor([2., 3.], requires_grad=True)\n'
        'tensor([3., 4.], grad_fn=<AddBackward0>) False\n'
        'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of Add, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).\n'
        'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]] is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).\n'
        'tensor([1.9093, 1.1411], grad_fn=<AddBackward0>)\n'
        'tensor([3.8186, 2.2822], grad_fn=<MulBackward0>)\n'
        'tensor([19.2532, 52.6182])'
    ),
    'inplace_methods': (
        'tensor([1., 1., 1.]) tensor([1., 1., 1.]) tensor([1., 1., 1.]) tensor([1., 1., 1.]) tensor([1., 1., 1.]) tensor([1., 1., 1.])\n'
        'tensor([3., 3.], grad_fn=<FillBackward2>)\n'
        'tensor([0., 0.])'
    ),
    'broadcast_gradients': (
        'tensor([[20., 40., 60.],\n'
        '        [20., 40., 60.]])\n'
        'tensor([10., 14., 18.])\n'
        'tensor([[6.],\n'
        '        [6.]])\n'
        'tensor(469.)'
    ),
    'factory_requires_grad_error': (
        'RuntimeError: Only Tensors of floating point and complex dtype can require gradients'
    ),
    'item_assignment': (
        'tensor([10.,  4.,  6.], grad_fn=<MulBackward0>)\n'
        'tensor([10.,  0.,  6.], grad_fn=<CopySlices>)\n'
        'tensor([2., 0., 2.])'
    ),
    'version_numbers': (
        '0 int\n'
        '3 3 0\n'
        '4'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
