"""Semantics of gradcli/engine/autograd.py (the backward pass (gradient vectors, retain_graph,
create_graph, inputs=, autograd.grad, accumulation, the order leaves are reached in)), pinned by
small programs and what real PyTorch 2.x printed for them (see tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("backward_gradient_vectors", """
x = torch.tensor([1.0, 2.0, 8.0], requires_grad=True)
y = torch.tensor([5.0, 1.0, 7.0], requires_grad=True)
z = x * y
attempt(lambda: z.backward())
z.backward(torch.tensor([1.0, 0.0, 0.5]))
print(x.grad, y.grad)
z = x * y
attempt(lambda: z.backward(torch.tensor([1.0, 1.0])))
attempt(lambda: torch.tensor([1.0]).backward())
s = (x * 2).sum()
s.backward(torch.tensor(2.0))
print(x.grad)
""")

program("retain_graph_and_backward_twice", """
x = torch.tensor([2.0], requires_grad=True)
y = x ** 2
y.backward(retain_graph=True)
y.backward()
print(x.grad)
attempt(lambda: y.backward())
for make in [lambda: x * x, lambda: x.exp(), lambda: x ** 3, lambda: x.sin(), lambda: x / x]:
    out = make()
    out.backward()
    attempt(lambda: out.backward())
for make in [lambda: x + x, lambda: x * 2, lambda: x - 1, lambda: -x, lambda: x + 1, lambda: x * x.detach()]:
    out = make().sum()
    out.backward()
    attempt(lambda: out.backward())
    print(out.grad_fn.next_functions[0][0].name(), "second backward done")
print(x.grad)
""")

program("create_graph_higher_order", """
x = torch.tensor([2.0], requires_grad=True)
y = x ** 3
g, = torch.autograd.grad(y, x, create_graph=True)
print(g)
g2, = torch.autograd.grad(g, x, create_graph=True)
print(g2)
g3, = torch.autograd.grad(g2, x)
print(g3)
x.grad = None
y = x ** 4
y.backward(create_graph=True)
print(x.grad)
x.grad.backward()
print(x.grad)
""")

program("backward_inputs", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = (x * w).sum()
y.backward(inputs=[x])
print(x.grad, w.grad)
h = x * 2
z = (h * w).sum()
z.backward(inputs=[h])
print(h.grad, w.grad)
attempt(lambda: (x * 2).sum().backward(inputs=[]))
""")

program("autograd_grad", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0], requires_grad=True)
out = (x ** 2).sum()
print(torch.autograd.grad(out, x, retain_graph=True))
attempt(lambda: torch.autograd.grad(out, [x, y], retain_graph=True))
print(torch.autograd.grad(out, [x, y], allow_unused=True, retain_graph=True))
print(torch.autograd.grad(out, [x, y], allow_unused=True, materialize_grads=True))
print(x.grad)
v = x * 3
print(torch.autograd.grad(v, x, grad_outputs=torch.tensor([1.0, 0.5])))
attempt(lambda: torch.autograd.grad((x * 2).sum(), torch.tensor([1.0])))
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
torch.autograd.backward([a * b, a + b], [torch.tensor(1.0), torch.tensor(2.0)])
print(a.grad, b.grad)
attempt(lambda: torch.autograd.backward(torch.tensor(1.0)))
""")

program("accumulation_and_reset", """
x = torch.tensor([2.0], requires_grad=True)
(x ** 2).backward()
(x ** 2).backward()
print(x.grad)
print(x.grad.zero_())
(x * 3).backward()
print(x.grad)
x.grad.data.zero_()
print(x.grad)
x.grad = None
(x * 5).backward()
print(x.grad)
g = x.grad
(x * 1).backward()
print(g is x.grad, g)
attempt(lambda: setattr(x, "grad", torch.tensor([1.0, 2.0])))
attempt(lambda: setattr(x, "grad", torch.tensor([1.0], dtype=torch.float64)))
""", requires=("fill_",))

program("create_graph_warning_follows_the_pass", """
x = torch.tensor(2.0, requires_grad=True)
x.register_hook(lambda g: print("hook", g))
(x ** 3).backward(create_graph=True)
print(x.grad)
""")

program("leaf_order", """
ls = [torch.tensor(float(i), requires_grad=True) for i in range(6)]
order = []
for i, l in enumerate(ls):
    l.register_hook(lambda g, i=i: order.append(i))

def run(y):
    order.clear()
    y.backward()
    print(order)

run(ls[0] * ls[1] * ls[2])
run(ls[0] + ls[1] + ls[2] + ls[3] + ls[4] + ls[5])
run(torch.stack(ls).sum())
run((ls[3] * ls[1]) + (ls[0] * ls[5]) + ls[2] * ls[4])
run(sum(l * l for l in ls))
""")


EXPECTED = {
    'backward_gradient_vectors': (
        'RuntimeError: grad can be implicitly created only for scalar outputs\n'
        'tensor([5.0000, 0.0000, 3.5000]) tensor([1., 0., 4.])\n'
        'RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of torch.Size([3]).\n'
        'RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn\n'
        'tensor([9.0000, 4.0000, 7.5000])'
    ),
    'retain_graph_and_backward_twice': (
        'tensor([8.])\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'AddBackward0 second backward done\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'MulBackward0 second backward done\n'
        'SubBackward0 second backward done\n'
        'NegBackward0 second backward done\n'
        'AddBackward0 second backward done\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'MulBackward0 second backward done\n'
        'tensor([40.9729])'
    ),
    'create_graph_higher_order': (
        'tensor([12.], grad_fn=<MulBackward0>)\n'
        'tensor([12.], grad_fn=<MulBackward0>)\n'
        'tensor([6.])\n'
        'UserWarning: Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)\n'
        'tensor([32.], grad_fn=<CopyBackwards>)\n'
        'tensor([80.], grad_fn=<CopyBackwards>)'
    ),
    'backward_inputs': (
        'tensor([3., 4.]) None\n'
        'tensor([3., 4.]) None\n'
        'RuntimeError: `inputs` argument to `backward()` cannot be empty.'
    ),
    'autograd_grad': (
        '(tensor([2., 4.]),)\n'
        'RuntimeError: The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.\n'
        '(tensor([2., 4.]), None)\n'
        '(tensor([2., 4.]), tensor([0.]))\n'
        'None\n'
        '(tensor([3.0000, 1.5000]),)\n'
        'RuntimeError: One of the differentiated Tensors does not require grad\n'
        'tensor(4.) tensor(3.)\n'
        'RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn'
    ),
    'accumulation_and_reset': (
        'tensor([8.])\n'
        'tensor([0.])\n'
        'tensor([3.])\n'
        'tensor([0.])\n'
        'tensor([5.])\n'
        'True tensor([6.])\n'
        "RuntimeError: attempting to assign a gradient of size '[2]' to a tensor of size '[1]'. Please ensure that the gradient and the tensor are the same size\n"
        "RuntimeError: attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'. The gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that assume they match."
    ),
    'create_graph_warning_follows_the_pass': (
        'hook tensor(12., grad_fn=<MulBackward0>)\n'
        'UserWarning: Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)\n'
        'tensor(12., grad_fn=<CopyBackwards>)'
    ),
    'leaf_order': (
        '[2, 0, 1]\n'
        '[5, 4, 3, 2, 0, 1]\n'
        '[0, 2, 5, 4, 1, 3]\n'
        '[2, 4, 0, 5, 3, 1]\n'
        '[5, 4, 3, 2, 1, 0]'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
