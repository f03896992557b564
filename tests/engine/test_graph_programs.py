"""Semantics of gradcli/engine/graph.py (grad_fn and next_functions, hooks on tensors, nodes and
leaves (their order, return checks, handles), multi-grad hooks, saved tensors and their hooks,
gradient edges), pinned by small programs and what real PyTorch 2.x printed for them (see
tests/pinned.py)."""

import pytest

from pinned import Programs, check, fresh_warn_once_state  # noqa: F401  (an autouse fixture)

PROGRAMS = Programs()
program = PROGRAMS.add


program("grad_fn_and_next_functions", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
z = x * y + x
print(z.grad_fn.name(), z.grad_fn)
(m, i), (acc, j) = z.grad_fn.next_functions
print(m.name(), i, acc.name(), j, acc.variable is x)
print(m.next_functions)
print(m.next_functions[0][0] is acc)
c = torch.tensor([1.0, 2.0])
w = x * c
print(w.grad_fn.next_functions)
print(x.grad_fn, x.is_leaf, z.is_leaf, z.requires_grad)
""")

program("hooks", """
def double_grad(grad):
    print(f"hook saw {grad}")
    return grad * 2

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x.register_hook(double_grad)
(x ** 2).sum().backward()
print(x.grad)
h.remove()
x.grad = None
(x ** 2).sum().backward()
print(x.grad)
x.grad = None
y = x * 2
y.register_hook(lambda g: print("non-leaf hook", g))
y.register_hook(lambda g: g * 10)
y.sum().backward()
print(x.grad)
attempt(lambda: torch.tensor([1.0]).register_hook(lambda g: g))
""")

program("hook_return_checks", """
def backward_with_hook(leaf, ret):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    w = x * 1
    (x if leaf else w).register_hook(ret)
    attempt(lambda: w.sum().backward())
    return x.grad

for leaf in (False, True):
    backward_with_hook(leaf, lambda g: 5)
    backward_with_hook(leaf, lambda g: 2.0)
    backward_with_hook(leaf, lambda g: [g])
    backward_with_hook(leaf, lambda g: np.ones(2))
    backward_with_hook(leaf, lambda g: torch.ones(3))
    backward_with_hook(leaf, lambda g: torch.ones(2, 1))
    backward_with_hook(leaf, lambda g: torch.ones(2, dtype=torch.float64))
    backward_with_hook(leaf, lambda g: torch.ones(2, dtype=torch.int64))
    backward_with_hook(leaf, lambda g: torch.ones(2, dtype=torch.bool))
    backward_with_hook(leaf, lambda g: torch.ones(2, dtype=torch.complex64))
    print(backward_with_hook(leaf, lambda g: g * 3))

def grow(g):
    return torch.ones(3)

class Hook:
    def __call__(self, g):
        return torch.ones(3)

backward_with_hook(False, grow)
backward_with_hook(True, Hook())
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = x * 1
w.register_hook(lambda g: None)
w.register_hook(lambda g: 5)
attempt(lambda: torch.autograd.grad(w.sum(), x))
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.register_hook(lambda g: torch.ones(3))
attempt(lambda: torch.autograd.grad((x * 1).sum(), x))

def node_hook(pre, ret):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    w = x * y
    if pre:
        w.grad_fn.register_prehook(ret)
    else:
        w.grad_fn.register_hook(ret)
    attempt(lambda: w.sum().backward())
    return x.grad

for pre in (True, False):
    node_hook(pre, lambda *a: 5)
    node_hook(pre, lambda *a: [torch.ones(2)])
    node_hook(pre, lambda *a: (torch.ones(2),) * 3)
    node_hook(pre, lambda *a: (5, None))
    node_hook(pre, lambda *a: (torch.ones(3), None))
    node_hook(pre, lambda *a: (torch.ones(2, dtype=torch.float64), None))
    print(node_hook(pre, lambda *a: (None, None)[:1 if pre else 2]))
    print(node_hook(pre, lambda *a: (a[0][0] * 2, None)[:1 if pre else 2]))
print(node_hook(True, lambda *a: (5,)))
x = torch.tensor([1.0, 2.0], requires_grad=True)
w = x * torch.ones(2)
w.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0], torch.ones(2)))
attempt(lambda: w.sum().backward())
""")

program("hook_handle_and_mode_reprs", """
import torch.autograd.forward_ad as fwAD
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
print(x.register_hook(lambda g: g))
print(y.register_hook(lambda g: g))
print(y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: None))
print(y.grad_fn.register_prehook(lambda grad_outputs: None))
print(torch.autograd.set_detect_anomaly(True))
print(torch.autograd.set_detect_anomaly(False))
print(torch.autograd.detect_anomaly())
print(fwAD.dual_level())
print(torch.no_grad(), torch.enable_grad(), torch.inference_mode())
print(repr(torch.set_grad_enabled(True)))
""")

program("tensor_hooks_see_none_gradients", """
def show(tag):
    def hook(g):
        print(tag, g)
    return hook

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
x.register_hook(show("x"))
a, b, c = x.unbind()
a.register_hook(show("a"))
b.register_hook(show("b"))
c.register_hook(show("c"))
b.retain_grad()
(c * 2).backward()
print(b.grad, x.grad)
p, q = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True).split(2)
p.register_hook(show("p"))
p.register_hook(lambda g: None)
q.register_hook(show("q"))
q.sum().backward()
a, b, c = x.unbind()
a.register_hook(lambda g: torch.tensor(1.0))
attempt(lambda: c.backward())

class DropSecond(torch.autograd.Function):
    @staticmethod
    def forward(ctx, u, v):
        return u * v

    @staticmethod
    def backward(ctx, g):
        return g, None

u = torch.tensor(2.0, requires_grad=True)
v = torch.tensor(3.0, requires_grad=True)
u.register_hook(show("u"))
v.register_hook(show("v"))
v1 = v * 1
v1.register_hook(show("v1"))
v1.grad_fn.register_prehook(show("v1 prehook"))
v1.grad_fn.register_hook(lambda grad_inputs, grad_outputs: print("v1 post", grad_inputs, grad_outputs))
DropSecond.apply(u, v1).backward()
print(u.grad, v.grad)
""")

program("hook_order", """
def show(tag):
    def hook(*args):
        print(tag, *args)
    return hook

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a, b, c = x.unbind()
c.register_hook(show("c1"))
a.register_hook(show("a1"))
c.register_hook(show("c2"))
a.retain_grad()
c.retain_grad()
c.register_hook(lambda g: g * 10)
c.grad_fn.register_prehook(show("prehook"))
c.grad_fn.register_hook(show("post"))
(a + c * 2).backward()
print(a.grad, c.grad, x.grad)
y = x * 2
handles = []

def first(g):
    print("first")
    handles[1].remove()

handles.append(y.register_hook(first))
handles.append(y.register_hook(show("second")))
y.sum().backward(retain_graph=True)
y.sum().backward()
""")

program("accumulate_grad_node_hooks", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
acc = y.grad_fn.next_functions[0][0]
print(acc.name(), acc.variable is x)

def post(grad_inputs, grad_outputs):
    print("post", grad_inputs, grad_outputs, x.grad)

def pre(grad_outputs):
    print("pre", grad_outputs, x.grad)

hp = acc.register_hook(post)
hq = acc.register_prehook(pre)
x.register_hook(lambda g: print("tensor hook", g))
x.register_post_accumulate_grad_hook(lambda t: print("post accumulate", t is x, t.grad))
y.sum().backward(retain_graph=True)
acc.register_hook(lambda gi, go: ())
y.sum().backward(retain_graph=True)
acc.register_hook(lambda gi, go: (torch.ones(2),))
attempt(lambda: y.sum().backward(retain_graph=True))
print(x.grad)
acc.register_hook(lambda gi, go: 5)
attempt(lambda: y.sum().backward(retain_graph=True))
hp.remove()
hq.remove()
x2 = torch.tensor([1.0, 2.0], requires_grad=True)
y2 = x2 * 3
acc2 = y2.grad_fn.next_functions[0][0]
acc2.register_prehook(lambda go: (go[0] * 10,))
y2.sum().backward(retain_graph=True)
print(x2.grad)
acc2.register_prehook(lambda go: (None,))
acc2.register_hook(lambda gi, go: print("post", gi, go))
x2.register_post_accumulate_grad_hook(lambda t: print("post accumulate", t.grad))
x2.grad = None
y2.sum().backward()
print(x2.grad)
""")

program("post_accumulate_grad_hooks", """
x = torch.tensor([1.0, 2.0], requires_grad=True)
handles = []

def first(t):
    print("first", t.grad)
    handles[1].remove()

handles.append(x.register_post_accumulate_grad_hook(first))
handles.append(x.register_post_accumulate_grad_hook(lambda t: print("second", t.grad)))
print(type(handles[0]).__name__)
(x * 2).sum().backward()
(x * 2).sum().backward()
handles[0].remove()
h = x.register_post_accumulate_grad_hook(lambda t: torch.ones(2))
attempt(lambda: (x * 2).sum().backward())
print(x.grad)
h.remove()
h = x.register_post_accumulate_grad_hook(lambda t: t)
(x * 2).sum().backward()
h.remove()
x.register_post_accumulate_grad_hook(lambda t: 5)
x.register_post_accumulate_grad_hook(lambda t: print("not reached"))
attempt(lambda: (x * 2).sum().backward())
x.register_post_accumulate_grad_hook(lambda t: torch.ones(3))
attempt(lambda: (x * 2).sum().backward())
attempt(lambda: (x * 2).register_post_accumulate_grad_hook(lambda t: None))
attempt(lambda: torch.tensor([1.0]).register_post_accumulate_grad_hook(lambda t: None))

w = torch.tensor(2.0, requires_grad=True)
y = w * 3
w.register_post_accumulate_grad_hook(lambda t: print("after", t.grad))
print(torch.autograd.grad(y, w, retain_graph=True))
y.backward(inputs=[w], retain_graph=True)
y.backward(create_graph=True)
v = torch.tensor(2.0, requires_grad=True)
v.register_post_accumulate_grad_hook(lambda t: print("unused input", t.grad))
y.backward(inputs=[v], retain_graph=True)
""")

program("hooks_with_inputs", """
def show(tag, ret=None):
    def hook(*args):
        print(tag, *args)
        return ret(*args) if ret else None
    return hook

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = (y * 3).sum()
y.register_hook(show("y hook", lambda g: g * 100))
print(torch.autograd.grad(z, [y, x], retain_graph=True))
print(torch.autograd.grad(z, [y], retain_graph=True))
y.grad_fn.register_prehook(show("y prehook"))
y.grad_fn.register_hook(show("y post"))
print(torch.autograd.grad(z, [y], retain_graph=True))
print(torch.autograd.grad(z, [y, x], retain_graph=True))
acc = y.grad_fn.next_functions[0][0]
acc.register_prehook(show("acc prehook", lambda go: (go[0] * 7,)))
print(torch.autograd.grad(z, [x], retain_graph=True))
print(y.retains_grad)
z.backward(inputs=[y], retain_graph=True)
print(y.retains_grad, y.grad, x.grad)
z.backward(retain_graph=True)
print(y.grad, x.grad)
attempt(lambda: z.backward(inputs=[torch.tensor(1.0)], retain_graph=True))
y2 = x * 5
z.backward(inputs=[y2], retain_graph=True)
print(y2.retains_grad, y2.grad)
y3 = x * 2
z3 = (y3 * 3).sum()
y3.register_hook(lambda g: g * 10)
y3.grad_fn.register_prehook(lambda go: (go[0] + 1,))
x.grad = None
z3.backward(inputs=[y3, x])
print(y3.grad, x.grad)
""")

program("multi_grad_hooks", """
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
c = torch.tensor(5.0)
h = torch.autograd.graph.register_multi_grad_hook((a, b), lambda grads: print("all", grads))
h2 = torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: print("any", g), mode="any")
print(type(h).__name__)
(a * b).sum().backward()
(a * 2).sum().backward()
attempt(lambda: torch.autograd.grad((a * b).sum(), [b]))
h.remove()
h2.remove()
(a * b).sum().backward()
x = a * 1
z = b * 1
torch.autograd.graph.register_multi_grad_hook((x, z), lambda grads: print("non-leaf", grads))
(x * z).sum().backward()
attempt(lambda: torch.autograd.graph.register_multi_grad_hook((a,), print, mode="some"))
attempt(lambda: torch.autograd.graph.register_multi_grad_hook((a, c), print))
print(a.grad, b.grad)
""")

program("saved_tensors", """
x = torch.tensor([0.5, 1.5], requires_grad=True)
y = x.pow(2)
print(x.equal(y.grad_fn._saved_self), x is y.grad_fn._saved_self, y.grad_fn._saved_exponent)
e = x.exp()
print(e.equal(e.grad_fn._saved_result), e is e.grad_fn._saved_result, e.grad_fn._saved_result)
m = x * 2
print(m.grad_fn._saved_other, m.grad_fn._saved_self)
s = x.sum(0, keepdim=True)
print(s.grad_fn._saved_dim, s.grad_fn._saved_keepdim, s.grad_fn._saved_self_sym_sizes)

def pack(t):
    print("pack", t)
    return t

def unpack(t):
    print("unpack", t)
    return t

b = torch.tensor([3.0, 4.0], requires_grad=True) * 2
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    p = x * b
    q = p.sin()
q.sum().backward()
print(x.grad)
w = x.cos()
w.grad_fn._raw_saved_self.register_hooks(lambda t: t * 1, lambda t: t * 10)
w.sum().backward()
print(x.grad)
attempt(lambda: w.grad_fn._saved_self)
with torch.autograd.graph.disable_saved_tensors_hooks("not here"):
    attempt(lambda: torch.autograd.graph.saved_tensors_hooks(pack, unpack).__enter__())
""")

program("gradient_edges", """
x = torch.tensor([0.3, 1.2], requires_grad=True)
y = x * 2
e = torch.autograd.graph.get_gradient_edge(y)
print(e.node is y.grad_fn, e.output_nr, e.ownership_token, type(e).__name__)
print(torch.autograd.graph.get_gradient_edge(x).node.name())
z = y.exp()
print(torch.autograd.grad(z.sum(), e, retain_graph=True))
print(torch.autograd.grad(z.sum(), [e, x], retain_graph=True))
print(torch.autograd.grad(z.sum(), {"y": e, "x": x}, retain_graph=True))
attempt(lambda: torch.autograd.graph.get_gradient_edge(torch.ones(2)))
attempt(lambda: torch.autograd.grad(z.sum(), torch.autograd.graph.GradientEdge(5, 0)))
z.sum().backward(inputs=[e], retain_graph=True)
print(x.grad)
w = y * y
y.mul_(3)
attempt(lambda: torch.autograd.grad(w.sum(), e))
v = x * 1
s = v.sin()
torch.autograd.graph.increment_version(v)
torch.autograd.graph.increment_version([v, v])
attempt(lambda: s.sum().backward())
""")


EXPECTED = {
    'grad_fn_and_next_functions': (
        'AddBackward0 <AddBackward0 object at 0x>\n'
        'MulBackward0 0 torch::autograd::AccumulateGrad 0 True\n'
        '((<AccumulateGrad object at 0x>, 0), (<AccumulateGrad object at 0x>, 0))\n'
        'True\n'
        '((<AccumulateGrad object at 0x>, 0), (None, 0))\n'
        'None True False True'
    ),
    'hooks': (
        'hook saw tensor([2., 4., 6.])\n'
        'tensor([ 4.,  8., 12.])\n'
        'tensor([2., 4., 6.])\n'
        'non-leaf hook tensor([1., 1., 1.])\n'
        'tensor([20., 20., 20.])\n'
        "RuntimeError: cannot register a hook on a tensor that doesn't require gradient"
    ),
    'hook_return_checks': (
        "TypeError: expected Variable, but hook returned 'int'\n"
        "TypeError: expected Variable, but hook returned 'float'\n"
        "TypeError: expected Variable, but hook returned 'list'\n"
        "TypeError: expected Variable, but hook returned 'numpy.ndarray'\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.LongTensor)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUBoolType)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUComplexFloatType)\n"
        'tensor([3., 3.])\n'
        "TypeError: expected Variable, but hook returned 'int'\n"
        "TypeError: expected Variable, but hook returned 'float'\n"
        "TypeError: expected Variable, but hook returned 'list'\n"
        "TypeError: expected Variable, but hook returned 'numpy.ndarray'\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.LongTensor)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUBoolType)\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got CPUComplexFloatType)\n"
        'tensor([3., 3.])\n'
        "RuntimeError: hook 'grow' has changed the size of value\n"
        "RuntimeError: hook '<unknown>' has changed the size of value\n"
        "TypeError: expected Variable, but hook returned 'int'\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "TypeError: expected tuple, but hook returned 'int'\n"
        "TypeError: expected tuple, but hook returned 'list'\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 3, but expected 1)\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)\n"
        'None\n'
        'tensor([2., 4.])\n'
        "TypeError: expected tuple, but hook returned 'int'\n"
        "TypeError: expected tuple, but hook returned 'list'\n"
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 3, but expected 2)\n"
        "TypeError: expected Variable, but hook returned 'int'\n"
        "RuntimeError: hook '<lambda>' has changed the size of value\n"
        "RuntimeError: hook '<lambda>' has changed the type of value (was torch.FloatTensor got torch.DoubleTensor)\n"
        'None\n'
        'tensor([2., 4.])\n'
        "TypeError: expected Variable, but hook returned 'int'\n"
        'None\n'
        "RuntimeError: can't replace a None gradient with a non-None value"
    ),
    'hook_handle_and_mode_reprs': (
        '<torch.utils.hooks.RemovableHandle object at 0x>\n'
        '<torch.utils.hooks.RemovableHandle object at 0x>\n'
        '<torch.utils.hooks.RemovableHandle object at 0x>\n'
        '<torch.utils.hooks.RemovableHandle object at 0x>\n'
        '<torch.autograd.anomaly_mode.set_detect_anomaly object at 0x>\n'
        '<torch.autograd.anomaly_mode.set_detect_anomaly object at 0x>\n'
        'UserWarning: Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging.\n'
        '<torch.autograd.anomaly_mode.detect_anomaly object at 0x>\n'
        '<torch.autograd.forward_ad.dual_level object at 0x>\n'
        '<torch.autograd.grad_mode.no_grad object at 0x> <torch.autograd.grad_mode.enable_grad object at 0x> <torch.autograd.grad_mode.inference_mode object at 0x>\n'
        'torch.autograd.grad_mode.set_grad_enabled(mode=True)'
    ),
    'tensor_hooks_see_none_gradients': (
        'a None\n'
        'b None\n'
        'c tensor(2.)\n'
        'x tensor([0., 0., 2.])\n'
        'None tensor([0., 0., 2.])\n'
        'p None\n'
        'q tensor([1., 1.])\n'
        "RuntimeError: can't replace a None gradient with a non-None value\n"
        'u tensor(1.)\n'
        'v1 None\n'
        'v1 prehook (None,)\n'
        'v1 post (None, None) (None,)\n'
        'v None\n'
        'tensor(1.) None'
    ),
    'hook_order': (
        'c1 tensor(2.)\n'
        'c2 tensor(2.)\n'
        'a1 tensor(1.)\n'
        'prehook (tensor(1.), None, tensor(20.))\n'
        'post (tensor([ 1.,  0., 20.]),) (tensor(1.), None, tensor(20.))\n'
        'tensor(1.) tensor(20.) tensor([ 1.,  0., 20.])\n'
        'first\n'
        'second tensor([1., 1., 1.])\n'
        'first'
    ),
    'accumulate_grad_node_hooks': (
        'torch::autograd::AccumulateGrad True\n'
        'tensor hook tensor([3., 3.])\n'
        'pre (tensor([3., 3.]),) None\n'
        'post accumulate True tensor([3., 3.])\n'
        'post () (tensor([3., 3.]),) tensor([3., 3.])\n'
        'tensor hook tensor([3., 3.])\n'
        'pre (tensor([3., 3.]),) tensor([3., 3.])\n'
        'post accumulate True tensor([6., 6.])\n'
        'post () (tensor([3., 3.]),) tensor([6., 6.])\n'
        'tensor hook tensor([3., 3.])\n'
        'pre (tensor([3., 3.]),) tensor([6., 6.])\n'
        'post accumulate True tensor([9., 9.])\n'
        'post () (tensor([3., 3.]),) tensor([9., 9.])\n'
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 1, but expected 0)\n"
        'tensor([9., 9.])\n'
        'tensor hook tensor([3., 3.])\n'
        'pre (tensor([3., 3.]),) tensor([9., 9.])\n'
        'post accumulate True tensor([12., 12.])\n'
        'post () (tensor([3., 3.]),) tensor([12., 12.])\n'
        "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 1, but expected 0)\n"
        'tensor([30., 30.])\n'
        'post accumulate None\n'
        'post () (None,)\n'
        'None'
    ),
    'post_accumulate_grad_hooks': (
        'RemovableHandle\n'
        'first tensor([2., 2.])\n'
        'second tensor([2., 2.])\n'
        'first tensor([4., 4.])\n'
        'RuntimeError: Tensor post accumulate grad hooks should return None.\n'
        'tensor([6., 6.])\n'
        "TypeError: expected Variable, but hook returned 'int'\n"
        "TypeError: expected Variable, but hook returned 'int'\n"
        'RuntimeError: post accumulate grad hooks cannot be registered on non-leaf tensors\n'
        "RuntimeError: cannot register a hook on a tensor that doesn't require gradient\n"
        '(tensor(3.),)\n'
        'after tensor(3.)\n'
        'after tensor(6.)\n'
        'UserWarning: Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1307.)'
    ),
    'hooks_with_inputs': (
        'y hook tensor([3., 3.])\n'
        '(tensor([3., 3.]), tensor([600., 600.]))\n'
        'y hook tensor([3., 3.])\n'
        '(tensor([300., 300.]),)\n'
        'y hook tensor([3., 3.])\n'
        '(tensor([300., 300.]),)\n'
        'y hook tensor([3., 3.])\n'
        'y prehook (tensor([300., 300.]),)\n'
        'y post (tensor([600., 600.]), None) (tensor([300., 300.]),)\n'
        '(tensor([3., 3.]), tensor([600., 600.]))\n'
        'y hook tensor([3., 3.])\n'
        'y prehook (tensor([300., 300.]),)\n'
        'y post (tensor([600., 600.]), None) (tensor([300., 300.]),)\n'
        '(tensor([600., 600.]),)\n'
        'False\n'
        'y hook tensor([3., 3.])\n'
        'y prehook (tensor([300., 300.]),)\n'
        'y post (None, None) (tensor([300., 300.]),)\n'
        'True tensor([300., 300.]) None\n'
        'y hook tensor([3., 3.])\n'
        'y prehook (tensor([300., 300.]),)\n'
        'y post (tensor([600., 600.]), None) (tensor([300., 300.]),)\n'
        'acc prehook (tensor([600., 600.]),)\n'
        'tensor([600., 600.]) tensor([4200., 4200.])\n'
        "RuntimeError: can't retain_grad on Tensor that has requires_grad=False\n"
        'True None\n'
        'acc prehook (tensor([62., 62.]),)\n'
        'tensor([30., 30.]) tensor([434., 434.])'
    ),
    'multi_grad_hooks': (
        '_MultiHandle\n'
        'any tensor([3., 4.])\n'
        'all [tensor([3., 4.]), tensor([1., 2.])]\n'
        'all [tensor([2., 2.]), None]\n'
        'any tensor([2., 2.])\n'
        'RuntimeError: A leaf node was passed to _will_engine_execute_node but we are currently running autograd.grad(). This is currently not supported.\n'
        'non-leaf [tensor([3., 4.]), tensor([1., 2.])]\n'
        "ValueError: Expects mode to be one of ('all', 'any') but got some\n"
        'AssertionError: Expected gradient function to be set\n'
        'tensor([11., 14.]) tensor([3., 6.])'
    ),
    'saved_tensors': (
        'True True 2\n'
        'True False tensor([1.6487, 4.4817], grad_fn=<ExpBackward0>)\n'
        'tensor(2) None\n'
        '(0,) True (2,)\n'
        'pack tensor([6., 8.], grad_fn=<MulBackward0>)\n'
        'pack tensor([0.5000, 1.5000], requires_grad=True)\n'
        'pack tensor([ 3., 12.], grad_fn=<MulBackward0>)\n'
        'unpack tensor([ 3., 12.], grad_fn=<MulBackward0>)\n'
        'unpack tensor([6., 8.], grad_fn=<MulBackward0>)\n'
        'unpack tensor([0.5000, 1.5000], requires_grad=True)\n'
        'tensor([-5.9400,  6.7508])\n'
        'tensor([-4.9810,  6.1005])\n'
        'RuntimeError: Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.\n'
        'RuntimeError: not here'
    ),
    'gradient_edges': (
        'True 0 None GradientEdge\n'
        'torch::autograd::AccumulateGrad\n'
        '(tensor([ 1.8221, 11.0232]),)\n'
        '(tensor([ 1.8221, 11.0232]), tensor([ 3.6442, 22.0464]))\n'
        "{'y': tensor([ 1.8221, 11.0232]), 'x': tensor([ 3.6442, 22.0464])}\n"
        'RuntimeError: It is not possible to get the gradient edge for a Tensor that does not require gradients\n'
        "RuntimeError: GradientEdge's first object must be an autograd.graph.Node but got int\n"
        'None\n'
        'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of Mul, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).\n'
        'RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]], which is output 0 of Mul, is at version 3; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).'
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_program_prints_what_pytorch_printed(name):
    check(PROGRAMS, EXPECTED, name)
