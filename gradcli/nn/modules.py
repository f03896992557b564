"""The few modules autograd snippets build small models from: Linear, Identity, Sequential,
ModuleList, activations and losses, on torch.nn.Module (gradcli.nn.module).  A program's
`class Net(torch.nn.Module)` registers its parameters and submodules by assigning them, as in
PyTorch."""

import math
from collections import OrderedDict

from ..engine.torch_classes import TorchClass
from ..ops.dropout import check_probability
from . import functional as F
from . import init
from .parameter import Parameter
from .module import Buffer, Module

__all__ = ["Module", "Buffer", "Linear", "Identity", "Sequential", "ReLU", "Tanh", "Sigmoid",
           "Softplus", "LeakyReLU", "GELU", "SiLU", "ELU", "CELU", "SELU",
           "Softmax", "LogSoftmax", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
           "AlphaDropout", "FeatureAlphaDropout", "MSELoss",
           "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "ModuleList"]


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
        init._reset_like_pytorch(self.weight, self.bias)

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
CELU = _activation("CELU", F.celu, "activation", (("alpha", 1.0), ("inplace", False)),
                   lambda m: f"alpha={m.alpha}" + (", inplace=True" if m.inplace else ""))
SELU = _activation("SELU", F.selu, "activation", (("inplace", False),), _inplace_repr)
Softmax = _activation("Softmax", F.softmax, "activation", (("dim", None),),
                      lambda m: f"dim={m.dim}")
LogSoftmax = _activation("LogSoftmax", F.log_softmax, "activation", (("dim", None),),
                         lambda m: f"dim={m.dim}")


def _dropout(name, function):
    """A dropout module: function(input, p, self.training, inplace)."""
    def __init__(self, p=0.5, inplace=False):
        Module.__init__(self)
        check_probability(p, ValueError)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "inplace", inplace)

    def forward(self, input):
        return function(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"

    return TorchClass(name, (Module,), {"__init__": __init__, "forward": forward,
                                        "extra_repr": extra_repr, "__module__": __name__,
                                        "__qualname__": name,
                                        "_torch_name": f"torch.nn.modules.dropout.{name}"})


Dropout = _dropout("Dropout", F.dropout)
AlphaDropout = _dropout("AlphaDropout", F.alpha_dropout)
FeatureAlphaDropout = _dropout("FeatureAlphaDropout", F.feature_alpha_dropout)
Dropout1d = _dropout("Dropout1d", F.dropout1d)
Dropout2d = _dropout("Dropout2d", F.dropout2d)
Dropout3d = _dropout("Dropout3d", F.dropout3d)


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
