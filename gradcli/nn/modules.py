"""torch.nn's Module and the few modules autograd snippets build small models from: Linear,
Sequential, activations and losses.  A program's `class Net(torch.nn.Module)` registers its
parameters and submodules by assigning them, as in PyTorch."""

import math
from collections import OrderedDict

from ..engine.grad_mode import no_grad
from ..engine.tensor import Tensor
from ..engine.torch_classes import TorchClass
from . import functional as F
from . import init
from .parameter import Parameter

__all__ = ["Module", "Linear", "Identity", "Sequential", "ReLU", "Tanh", "Sigmoid", "Softplus",
           "LeakyReLU", "GELU", "SiLU", "ELU", "Softmax", "LogSoftmax", "MSELoss", "L1Loss",
           "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "ModuleList"]


def _add_indent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module(metaclass=TorchClass):
    """Base class of models: assigning a Parameter or a Module to an attribute registers it;
    calling the module runs its forward."""

    _torch_name = "torch.nn.modules.module.Module"

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        registries = self.__dict__.get("_parameters"), self.__dict__.get("_modules")
        parameters, modules = registries
        if isinstance(value, (Parameter, Module)):
            if parameters is None:
                kind = "parameters" if isinstance(value, Parameter) else "module"
                raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
            parameters.pop(name, None)
            modules.pop(name, None)
            (parameters if isinstance(value, Parameter) else modules)[name] = value
        elif parameters is not None and name in parameters:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                f"(torch.nn.Parameter or None expected)")
            parameters[name] = None
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                f"(torch.nn.Module or None expected)")
            modules[name] = None
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        self.__dict__.get("_parameters", {}).pop(name, None)
        self.__dict__.get("_modules", {}).pop(name, None)
        object.__delattr__(self, name)

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  f'"forward" function')

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_member_name(self, name, "parameter", self._parameters)
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            f"(torch.nn.Parameter or None required)")
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        _check_member_name(self, name, "module", self._modules)
        self._modules[name] = module
        object.__setattr__(self, name, module)

    register_module = add_module

    # ------------------------------------------------------------------ walking the tree
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        memo = set() if memo is None else memo
        if id(self) in memo and remove_duplicate:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                                remove_duplicate)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        walk = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in walk:
            for name, p in module._parameters.items():
                if p is None or (remove_duplicate and id(p) in seen):
                    continue
                seen.add(id(p))
                yield (f"{module_prefix}.{name}" if module_prefix else name), p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def state_dict(self, destination=None, prefix="", keep_vars=False):
        out = OrderedDict() if destination is None else destination
        for name, p in self.named_parameters(prefix=prefix.rstrip("."), remove_duplicate=False):
            out[name] = p if keep_vars else p.detach()
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        own = dict(self.named_parameters(remove_duplicate=False))
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            parts = []
            if missing:
                parts.append("Missing key(s) in state_dict: " +
                             ", ".join(f'"{k}"' for k in missing) + ". ")
            if unexpected:
                parts.append("Unexpected key(s) in state_dict: " +
                             ", ".join(f'"{k}"' for k in unexpected) + ". ")
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(parts))
        with no_grad():
            for name, p in own.items():
                if name in state_dict:
                    p.copy_(state_dict[name])
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------------ modes and gradients
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.detach_().zero_() if p.grad.grad_fn is not None else p.grad.zero_()

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _convert(self, convert):
        with no_grad():
            for module in self.modules():
                for name, p in module._parameters.items():
                    if p is not None:
                        new = Parameter(convert(p.detach()), p.requires_grad)
                        module._parameters[name] = new
                        object.__setattr__(module, name, new)
        return self

    def double(self):
        return self._convert(lambda t: t.double())

    def float(self):
        return self._convert(lambda t: t.float())

    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype", next((a for a in args if not isinstance(a, str) and
                                          type(a).__name__ == "dtype"), None))
        return self if dtype is None else self._convert(lambda t: t.to(dtype))

    def cpu(self):
        return self

    # ------------------------------------------------------------------ printing
    def extra_repr(self):
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({name}): {_add_indent(repr(module), 2)}"
                    for name, module in self._modules.items()]
        lines += children
        text = type(self).__name__ + "("
        if lines:
            if len(lines) == 1 and not children:
                text += extra
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


class _IncompatibleKeys:
    def __init__(self, missing_keys, unexpected_keys):
        self.missing_keys = missing_keys
        self.unexpected_keys = unexpected_keys

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")


def _typename(obj):
    if isinstance(obj, Tensor):
        return "torch." + {"float32": "FloatTensor", "float64": "DoubleTensor"}.get(
            obj.dtype.name, "Tensor")
    return type(obj).__name__


# ---------------------------------------------------------------------- layers

class Identity(Module):
    _torch_name = "torch.nn.modules.linear.Identity"

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """y = x @ weight.T + bias, with PyTorch's initialisation (kaiming_uniform_ with a=sqrt(5)
    for the weight, uniform in +-1/sqrt(in_features) for the bias)."""

    _torch_name = "torch.nn.modules.linear.Linear"

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        from ..ops import empty
        self.weight = Parameter(empty((out_features, in_features), dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Sequential(Module):
    """Modules run one after the other; named "0", "1", ... (or by an OrderedDict's keys)."""

    _torch_name = "torch.nn.modules.container.Sequential"

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (dict, OrderedDict)):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules.values()))

    def __getitem__(self, index):
        modules = list(self._modules.items())
        if isinstance(index, slice):
            return Sequential(OrderedDict(modules[index]))
        return modules[index][1]

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class ModuleList(Module):
    _torch_name = "torch.nn.modules.container.ModuleList"

    def __init__(self, modules=None):
        super().__init__()
        for module in modules or ():
            self.append(module)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules.values()))

    def __getitem__(self, index):
        return list(self._modules.values())[index]


def _check_member_name(module, name, kind, members):
    """A parameter's or child module's name, checked as PyTorch checks it (and, gradcli's own,
    never a `__` name: the attribute is set on the object itself)."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f"{kind} name can't contain \".\", got: {name}" if kind == "module"
                       else f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if (hasattr(module, name) and name not in members) or name.startswith("__"):
        raise KeyError(f"attribute '{name}' already exists")


def _activation(name, function, torch_module, arguments=(), repr_of=None):
    """A module class applying F.<function> with the keyword arguments it was made with."""
    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        values = dict(arguments)
        if len(args) > len(arguments):
            raise TypeError(f"{name}.__init__() takes from 1 to {len(arguments) + 1} positional "
                            f"arguments but {len(args) + 1} were given")
        values.update(zip([k for k, _ in arguments], args))
        for key in kwargs:
            if key not in values:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument "
                                f"'{key}'")
        values.update(kwargs)
        for key, value in values.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_arguments", values)

    def forward(self, input):
        return function(input, **self._arguments)

    def extra_repr(self):
        return repr_of(self) if repr_of else ""

    return TorchClass(name, (Module,), {"__init__": __init__, "forward": forward,
                                        "extra_repr": extra_repr, "__module__": __name__,
                                        "__qualname__": name,
                                        "_torch_name": f"torch.nn.modules.{torch_module}.{name}"})


def _inplace_repr(m):
    return "inplace=True" if m.inplace else ""


ReLU = _activation("ReLU", F.relu, "activation", (("inplace", False),), _inplace_repr)
Tanh = _activation("Tanh", F.tanh, "activation")
Sigmoid = _activation("Sigmoid", F.sigmoid, "activation")
SiLU = _activation("SiLU", F.silu, "activation", (("inplace", False),), _inplace_repr)
GELU = _activation("GELU", F.gelu, "activation", (("approximate", "none"),),
                   lambda m: f"approximate='{m.approximate}'")
Softplus = _activation("Softplus", F.softplus, "activation", (("beta", 1.0), ("threshold", 20.0)),
                       lambda m: f"beta={m.beta}, threshold={m.threshold}")
LeakyReLU = _activation("LeakyReLU", F.leaky_relu, "activation",
                        (("negative_slope", 0.01), ("inplace", False)),
                        lambda m: f"negative_slope={m.negative_slope}" +
                        (", inplace=True" if m.inplace else ""))
ELU = _activation("ELU", F.elu, "activation", (("alpha", 1.0), ("inplace", False)),
                  lambda m: f"alpha={m.alpha}" + (", inplace=True" if m.inplace else ""))
Softmax = _activation("Softmax", F.softmax, "activation", (("dim", None),),
                      lambda m: f"dim={m.dim}")
LogSoftmax = _activation("LogSoftmax", F.log_softmax, "activation", (("dim", None),),
                         lambda m: f"dim={m.dim}")


def _loss(name, function, arguments):
    cls = _activation(name, None, "loss", arguments)

    def forward(self, input, target):
        return function(input, target, **self._arguments)
    cls.forward = forward
    return cls


MSELoss = _loss("MSELoss", F.mse_loss, (("size_average", None), ("reduce", None),
                                        ("reduction", "mean")))
L1Loss = _loss("L1Loss", F.l1_loss, (("size_average", None), ("reduce", None),
                                     ("reduction", "mean")))
CrossEntropyLoss = _loss("CrossEntropyLoss", F.cross_entropy,
                         (("weight", None), ("size_average", None), ("ignore_index", -100),
                          ("reduce", None), ("reduction", "mean"), ("label_smoothing", 0.0)))
NLLLoss = _loss("NLLLoss", F.nll_loss, (("weight", None), ("size_average", None),
                                        ("ignore_index", -100), ("reduce", None),
                                        ("reduction", "mean")))
BCELoss = _loss("BCELoss", F.binary_cross_entropy, (("weight", None), ("size_average", None),
                                                    ("reduce", None), ("reduction", "mean")))
BCEWithLogitsLoss = _loss("BCEWithLogitsLoss", F.binary_cross_entropy_with_logits,
                          (("weight", None), ("size_average", None), ("reduce", None),
                           ("reduction", "mean"), ("pos_weight", None)))
