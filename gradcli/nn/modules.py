"""The few modules autograd snippets build small models from: Linear, Identity, Sequential,
ModuleList, activations and losses, on torch.nn.Module (gradcli.nn.module).  A program's
`class Net(torch.nn.Module)` registers its parameters and submodules by assigning them, as in
PyTorch."""

import operator
from collections import OrderedDict

from ..engine.tensor import Tensor
from ..engine.torch_classes import TorchClass
from ..ops.dropout import check_probability
from . import functional as F
from . import init
from .parameter import Parameter
from . import module  # (torch.nn.modules.module, as programs see it)
from .module import Buffer, Module

__all__ = ["Module", "Buffer", "Linear", "Identity", "Sequential", "ReLU", "Tanh", "Sigmoid",
           "Softplus", "LeakyReLU", "GELU", "SiLU", "ELU", "CELU", "SELU",
           "Softmax", "LogSoftmax", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
           "AlphaDropout", "FeatureAlphaDropout", "MSELoss",
           "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "ModuleList",
           "SmoothL1Loss", "HuberLoss", "KLDivLoss", "CosineSimilarity", "MarginRankingLoss",
           "PoissonNLLLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss", "GaussianNLLLoss"]
__all__ += ["ModuleDict", "ParameterList", "ParameterDict", "Flatten", "Unflatten", "Embedding",
            "LayerNorm", "BatchNorm1d", "ReLU6", "Hardtanh", "GLU", "Hardsigmoid", "Hardswish",
            "Mish", "Softsign", "Tanhshrink", "Softshrink", "Hardshrink", "Threshold",
            "LogSigmoid", "Softmin"]
__all__ += ["BatchNorm2d", "BatchNorm3d", "PReLU", "GroupNorm", "InstanceNorm1d",
            "InstanceNorm2d", "InstanceNorm3d"]
__all__ += ["module"]


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
        init._default_weight_and_bias(self, (out_features, in_features), out_features, bias,
                                      dtype)

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
            for name, child in args[0].items():
                self.add_module(name, child)
        else:
            for i, child in enumerate(args):
                self.add_module(str(i), child)

    def forward(self, input):
        for child in self._modules.values():
            input = child(input)
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
        for child in modules or ():
            self.append(child)

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
Softmin = _activation("Softmin", F.softmin, "activation", (("dim", None),),
                      lambda m: f"dim={m.dim}")
Hardtanh = _activation("Hardtanh", F.hardtanh, "activation",
                       (("min_val", -1.0), ("max_val", 1.0), ("inplace", False)),
                       lambda m: f"min_val={m.min_val}, max_val={m.max_val}" +
                       (", inplace=True" if m.inplace else ""))
GLU = _activation("GLU", F.glu, "activation", (("dim", -1),), lambda m: f"dim={m.dim}")
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid, "activation", (("inplace", False),))
Hardswish = _activation("Hardswish", F.hardswish, "activation", (("inplace", False),))
Mish = _activation("Mish", F.mish, "activation", (("inplace", False),), _inplace_repr)
Softsign = _activation("Softsign", F.softsign, "activation")
Tanhshrink = _activation("Tanhshrink", F.tanhshrink, "activation")
LogSigmoid = _activation("LogSigmoid", F.logsigmoid, "activation")
Softshrink = _activation("Softshrink", F.softshrink, "activation", (("lambd", 0.5),),
                         lambda m: str(m.lambd))
Hardshrink = _activation("Hardshrink", F.hardshrink, "activation", (("lambd", 0.5),),
                         lambda m: str(m.lambd))
Threshold = _activation("Threshold", F.threshold, "activation",
                        (("threshold", None), ("value", None), ("inplace", False)),
                        lambda m: f"threshold={m.threshold}, value={m.value}" +
                        (", inplace=True" if m.inplace else ""))
ReLU6 = _activation("ReLU6", lambda input, inplace: F.hardtanh(input, 0.0, 6.0, inplace),
                    "activation", (("inplace", False),), _inplace_repr)
ReLU6.min_val, ReLU6.max_val = 0.0, 6.0


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
SmoothL1Loss = _loss("SmoothL1Loss", F.smooth_l1_loss, (("size_average", None), ("reduce", None),
                                                   ("reduction", "mean"), ("beta", 1.0)))
HuberLoss = _loss("HuberLoss", F.huber_loss, (("reduction", "mean"), ("delta", 1.0)))
KLDivLoss = _loss("KLDivLoss", F.kl_div, (("size_average", None), ("reduce", None),
                                          ("reduction", "mean"), ("log_target", False)))


def _pair_forward(function, inputs, name, torch_module, arguments):
    """A module whose forward takes `inputs` tensors (CosineSimilarity's x1 and x2,
    MarginRankingLoss's input1, input2 and target)."""
    cls = _activation(name, None, torch_module, arguments)

    def forward(self, *args):
        if len(args) != inputs:
            raise TypeError(f"{name}.forward() takes {inputs + 1} positional arguments but "
                            f"{len(args) + 1} were given")
        return function(*args, **self._arguments)
    cls.forward = forward
    return cls


PoissonNLLLoss = _loss("PoissonNLLLoss", F.poisson_nll_loss,
                       (("log_input", True), ("full", False), ("size_average", None),
                        ("eps", 1e-8), ("reduce", None), ("reduction", "mean")))
HingeEmbeddingLoss = _loss("HingeEmbeddingLoss", F.hinge_embedding_loss,
                           (("margin", 1.0), ("size_average", None), ("reduce", None),
                            ("reduction", "mean")))
CosineEmbeddingLoss = _pair_forward(F.cosine_embedding_loss, 3, "CosineEmbeddingLoss", "loss",
                                    (("margin", 0.0), ("size_average", None), ("reduce", None),
                                     ("reduction", "mean")))
GaussianNLLLoss = _pair_forward(F.gaussian_nll_loss, 3, "GaussianNLLLoss", "loss",
                                (("full", False), ("eps", 1e-6), ("reduction", "mean")))
CosineSimilarity = _pair_forward(F.cosine_similarity, 2, "CosineSimilarity", "distance",
                                 (("dim", 1), ("eps", 1e-8)))
MarginRankingLoss = _pair_forward(F.margin_ranking_loss, 3, "MarginRankingLoss", "loss",
                                  (("margin", 0.0), ("size_average", None), ("reduce", None),
                                   ("reduction", "mean")))


# ------------------------------------------------------------------ containers

class ModuleDict(Module):
    """Modules by name, in insertion order."""

    _torch_name = "torch.nn.modules.container.ModuleDict"

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules))

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def pop(self, key):
        module = self[key]
        del self[key]
        return module

    def clear(self):
        self._modules.clear()

    def update(self, modules):
        items = modules.items() if isinstance(modules, (dict, OrderedDict, ModuleDict)) \
            else modules
        for key, child in items:
            self[key] = child


def _parameter_line(key, p, type_name):
    if not isinstance(p, Tensor):  # (a container holds any object, as PyTorch's)
        return f"  ({key}): Object of type: {type(p).__name__}"
    size = "x".join(str(s) for s in p.shape)
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"  ({key}): {kind} containing: [{type_name(p)} of size {size}]"


def _as_parameter(value):
    """A tensor put in a ParameterList or ParameterDict becomes a Parameter, as in PyTorch."""
    return Parameter(value) if isinstance(value, Tensor) and not isinstance(value, Parameter) \
        else value


def _dict_key(key):
    """A ParameterDict's key: a string (PyTorch's TypeError for another type)."""
    if not isinstance(key, str):
        raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                        f"string (type is '{type(key).__name__}'). Open an issue on github if "
                        "you need non-string keys.")
    return key


class ParameterList(Module):
    """Parameters by position ("0", "1", ...)."""

    _torch_name = "torch.nn.modules.container.ParameterList"

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        for value in values or ():
            self.append(value)

    def _attribute(self, index):
        """The attribute of entry `index`: "0", "1", ... (PyTorch's _get_abs_string_index; an
        index is an integer, never a string that `%` would format into a name)."""
        index, n = operator.index(index), len(self)
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of range")
        return str(index % n)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ParameterList([self[i] for i in range(len(self))[index]])
        return getattr(self, self._attribute(index))

    def __setitem__(self, index, value):
        setattr(self, self._attribute(index), _as_parameter(value))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def append(self, value):
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        return "\n".join(_parameter_line(k, p, lambda t: str(t.dtype))
                         for k, p in enumerate(self))


class ParameterDict(Module):
    """Parameters by name."""

    _torch_name = "torch.nn.modules.container.ParameterDict"

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    # A key is an attribute, as in PyTorch, but for a `_` key, which lives in the module's
    # registry (a Parameter) and in _keys (any value) only: a key a program gives never reads,
    # sets or deletes one of the `_` attributes (`__class__`, `__dict__`, `_parameters`) that
    # no program reaches (README, "Safety and limits").

    def __getitem__(self, key):
        key = _dict_key(key)
        if not key.startswith("_"):
            return getattr(self, key)
        if key not in self._keys:
            raise AttributeError(f"'ParameterDict' object has no attribute '{key}'")
        return self._parameters[key] if key in self._parameters else self._keys[key]

    def __setitem__(self, key, value):
        key, value = _dict_key(key), _as_parameter(value)
        if not key.startswith("_"):
            self._keys[key] = None
            setattr(self, key, value)
            return
        self._parameters.pop(key, None)
        if isinstance(value, Parameter):
            self._parameters[key] = value
        self._keys[key] = value

    def __delitem__(self, key):
        del self._keys[key]
        if key.startswith("_"):
            self._parameters.pop(key, None)
        else:
            delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return list(self._keys)

    def items(self):
        return [(k, self[k]) for k in self._keys]

    def values(self):
        return [self[k] for k in self._keys]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for key, value in items:
            self[key] = value

    def extra_repr(self):
        return "\n".join(_parameter_line(k, p, lambda t: t.type()) for k, p in self.items())


# ------------------------------------------------------------------ layers

class Flatten(Module):
    _torch_name = "torch.nn.modules.flatten.Flatten"

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    _torch_name = "torch.nn.modules.flatten.Unflatten"

    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Embedding(Module):
    """A lookup table of num_embeddings rows of embedding_dim (initialised N(0, 1), the
    padding_idx row zero)."""

    _torch_name = "torch.nn.modules.sparse.Embedding"

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, \
                    "Padding_idx must be within num_embeddings"
                padding_idx = num_embeddings + padding_idx
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            from ..ops import empty
            self.weight = Parameter(empty((num_embeddings, embedding_dim), dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            from ..engine.grad_mode import no_grad
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)


def _affine_parameters(module, shape, affine, bias, dtype):
    """A normalization's weight and bias of shape (None when not affine, bias None without
    bias), as LayerNorm, BatchNorm and GroupNorm register them; reset_parameters fills them."""
    from ..ops import empty
    module.register_parameter("weight", Parameter(empty(shape, dtype=dtype)) if affine else None)
    module.register_parameter("bias", Parameter(empty(shape, dtype=dtype))
                              if affine and bias else None)


def _reset_affine(module):
    """weight ones, bias zeros (in place, as PyTorch's init.ones_ and zeros_)."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """F.layer_norm over the last dims, with a learnable weight (ones) and bias (zeros)."""

    _torch_name = "torch.nn.modules.normalization.LayerNorm"

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class BatchNorm1d(Module):
    """F.batch_norm over (N, C) or (N, C, L) inputs (BatchNorm2d: (N, C, H, W), BatchNorm3d:
    (N, C, D, H, W)): batch statistics in training (the running ones updated), the running
    ones in eval."""

    _torch_name = "torch.nn.modules.batchnorm.BatchNorm1d"
    _version = 2  # (PyTorch's _NormBase)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        from ..ops import ones, tensor, zeros
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine_parameters(self, num_features, affine, bias, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", ones(num_features, dtype=dtype))
            from ..engine import dtypes
            self.register_buffer("num_batches_tracked", tensor(0, dtype=dtypes.int64))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_parameters(self):
        """(as PyTorch's: the stats and parameters written in place, their versions 1)"""
        self.reset_running_stats()
        _reset_affine(self)

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    _dims, _expected = (2, 3), "2D or 3D"

    def forward(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._expected} input (got {input.dim()}D input)")
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            factor = (1.0 / float(self.num_batches_tracked) if self.momentum is None
                      else self.momentum)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if keep else None,
                            self.running_var if keep else None, self.weight, self.bias,
                            bn_training, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm2d(BatchNorm1d):
    _torch_name = "torch.nn.modules.batchnorm.BatchNorm2d"
    _dims, _expected = (4,), "4D"


class BatchNorm3d(BatchNorm1d):
    _torch_name = "torch.nn.modules.batchnorm.BatchNorm3d"
    _dims, _expected = (5,), "5D"


class PReLU(Module):
    """F.prelu with a learnable weight of num_parameters entries (1, or one per channel), all
    init."""

    _torch_name = "torch.nn.modules.activation.PReLU"

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        from ..ops import empty
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class _InstanceNorm(BatchNorm1d):
    """F.instance_norm per sample and channel; BatchNorm's parameters and buffers, by default
    neither (affine=False, track_running_stats=False)."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias=bias)

    def forward(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._expected} input (got {input.dim()}D input)")
        unbatched = self._dims[0]
        feature_dim = input.dim() - unbatched
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            import warnings
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == unbatched:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)


class InstanceNorm1d(_InstanceNorm):
    _torch_name = "torch.nn.modules.instancenorm.InstanceNorm1d"
    _dims, _expected = (2, 3), "2D or 3D"


class InstanceNorm2d(_InstanceNorm):
    _torch_name = "torch.nn.modules.instancenorm.InstanceNorm2d"
    _dims, _expected = (3, 4), "3D or 4D"


class InstanceNorm3d(_InstanceNorm):
    _torch_name = "torch.nn.modules.instancenorm.InstanceNorm3d"
    _dims, _expected = (4, 5), "4D or 5D"


class GroupNorm(Module):
    """F.group_norm over num_groups groups of channels, with a learnable weight (ones) and bias
    (zeros) per channel."""

    _torch_name = "torch.nn.modules.normalization.GroupNorm"

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = (num_groups, num_channels,
                                                                     eps, affine)
        _affine_parameters(self, num_channels, affine, bias, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")
