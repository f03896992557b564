"""The op table machinery: one `Op` declaration per operation, and the dispatcher that runs its
forward on NumPy arrays and records its backward node.

An op declares its forward (a NumPy function), one VJP per differentiable input (a function of
the incoming gradient `g` written in Tensor operations, so that create_graph differentiates it
again), its JVP, its grad_fn name, method and operator names, a doc line with the derivative
formula, and sample domains for tests.  What a node saves for backward is derived from the VJPs'
parameter names: a VJP that reads `self` saves the input `self`, one that reads `result` saves
the output.  So an op saves exactly what its formulas need, only for inputs that need a gradient,
like PyTorch's derivatives.yaml.
"""

import numbers
import traceback

import numpy as np

from ..engine import dtypes, messages
from ..engine.grad_mode import GradMode
from ..engine.graph import RELEASED, AnomalyMode, Node, SavedOutput, SavedTensor
from ..engine.tensor import Tensor, to_array

OPS = {}            # public name -> Op or Overload, in declaration order
ALIASES = {}        # alternative public name -> name in OPS (`divide` -> `div`)
_MISSING = object()

G, INPUT, RESULT, ATTR, SHAPE, DTYPE, SHAPES = range(7)


class ForwardAD:
    """The active forward-mode AD level (None when no dual_level is open)."""
    level = None
    duals = None  # weak references to the tensors given a tangent at this level


class NodeRecorder:
    """Optional observer of node creation (the CLI records values and source lines for graph and
    explain); None in normal use, so the hot path pays one attribute read."""
    callback = None


class Sample:
    """Test inputs for an op: tensor shapes (or explicit values) and attributes.

    shapes: a tuple per tensor input (None for a Python-number input given in `values`);
    low/high: the domain tensors are drawn from; attrs: keyword attributes; values: explicit
    non-tensor inputs by position."""

    def __init__(self, *shapes, low=-2.0, high=2.0, attrs=None, values=None, gradgrad=True,
                 name=None):
        self.shapes = shapes
        self.low, self.high = low, high
        self.attrs = attrs or {}
        self.values = values or {}
        self.gradgrad = gradgrad
        self.name = name

    def __repr__(self):
        parts = [str(s) for s in self.shapes] + [f"{k}={v}" for k, v in self.attrs.items()]
        return self.name or ",".join(parts)


def elementwise_samples(low=-2.0, high=2.0, gradgrad=True, unary=True):
    """Scalar, vector, matrix and broadcast shapes over a domain (HIPS autograd's sweep)."""
    if unary:
        shapes = [(), (3,), (2, 3)]
        return [Sample(s, low=low, high=high, gradgrad=gradgrad) for s in shapes]
    pairs = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((3,), ())]
    return [Sample(a, b, low=low, high=high, gradgrad=gradgrad) for a, b in pairs]


def _camel(name):
    return "".join(p.capitalize() for p in name.split("_"))


COMPOSITION = "composition"


class Op:
    """One operation of the table."""

    def __init__(self, name, forward, vjp=None, *, inputs=("self",), attrs=(), jvp="elementwise",
                 grad_fn=None, method=True, function=True, inplace=False, doc="", formula="",
                 samples=(), dtype="promote", differentiable=True, outputs=1, view=False,
                 public=True, kind="elementwise", signature=None, output_wrapper=None,
                 edges=None):
        self.name = name
        self.forward = forward
        self.inputs = tuple(inputs)
        self.variadic = len(self.inputs) == 1 and self.inputs[0].startswith("*")
        self.attr_names = tuple(a if isinstance(a, str) else a[0] for a in attrs)
        self.attr_defaults = tuple(_MISSING if isinstance(a, str) else a[1] for a in attrs)
        self.default_attrs = self.attr_defaults if _MISSING not in self.attr_defaults else None
        self.grad_fn_name = grad_fn or _camel(name) + "Backward0"
        self.method = method
        self.function = function
        self.inplace = inplace
        self.doc = doc
        self.formula = formula
        self.samples = list(samples)
        self.dtype_rule = dtype
        # vjp=COMPOSITION: a composite op whose derivative is that of the ops it runs (PyTorch's
        # CompositeImplicit ops, such as linalg.matrix_norm, have no formula of their own)
        self.derived = vjp == COMPOSITION
        if self.derived:
            vjp, jvp = None, None
        self.differentiable = differentiable and (vjp is not None or self.derived)
        self.n_outputs = outputs
        self.view = view
        self.public = public
        self.kind = kind
        self.signature = signature
        self.output_wrapper = output_wrapper
        # the inputs that are edges of the node (PyTorch's Scalar overloads and where's condition
        # take part in the computation but not in next_functions); None: every input
        names = [n.lstrip("*") for n in self.inputs]
        self.edge_index = None if edges is None else tuple(names.index(e) for e in edges)
        self.per_input = isinstance(vjp, tuple)
        if vjp is None:
            self.vjps = ()
        elif self.per_input:
            self.vjps = tuple(None if f is None else (f, self._param_kinds(f)) for f in vjp)
        else:
            self.vjps = ((vjp, self._param_kinds(vjp)),)
        self.jvp = jvp
        if jvp not in ("elementwise", "linear", None) and isinstance(jvp, tuple):
            self.jvps = tuple(None if f is None else (f, self._param_kinds(f)) for f in jvp)
        elif callable(jvp):
            self.jvps = ((jvp, self._param_kinds(jvp)),)
        else:
            self.jvps = None
        self.saves = self._saved_names()
        # per VJP entry: the input indices it saves and whether it saves the output
        self.save_plan = tuple(
            ((), False) if e is None else
            (tuple(sorted({i for k, i in e[1] if k == INPUT})), any(k == RESULT for k, _ in e[1]))
            for e in self.vjps)
        self.node_cls = type(self.grad_fn_name, (OpNode,), {"__slots__": (), "op": self})

    # -------------------------------------------------------------- declaration helpers
    def _param_kinds(self, fn):
        code = fn.__code__
        kinds = []
        names = [n.lstrip("*") for n in self.inputs]
        for p in code.co_varnames[:code.co_argcount]:
            if p in ("g", "t"):
                kinds.append((G, 0))
            elif p in names:
                kinds.append((INPUT, names.index(p)))
            elif p == "result":
                kinds.append((RESULT, 0))
            elif p in self.attr_names:
                kinds.append((ATTR, self.attr_names.index(p)))
            elif p.endswith("_shape") and p[:-6] in names:
                kinds.append((SHAPE, names.index(p[:-6])))
            elif p.endswith("_dtype") and p[:-6] in names:
                kinds.append((DTYPE, names.index(p[:-6])))
            elif p == "shapes":
                kinds.append((SHAPES, 0))
            else:
                raise TypeError(f"op {self.name}: VJP/JVP parameter {p!r} names nothing")
        return tuple(kinds)

    def _saved_names(self):
        names = [n.lstrip("*") for n in self.inputs]
        saved = []
        for entry in self.vjps:
            if entry is None:
                continue
            for kind, idx in entry[1]:
                name = names[idx] if kind == INPUT else "result" if kind == RESULT else None
                if name and name not in saved:
                    saved.append(name)
        return tuple(saved)

    def __repr__(self):
        return f"<op {self.name}>"

    # -------------------------------------------------------------- calling
    def bind(self, args, kwargs):
        """Split call arguments into tensor inputs and attribute values."""
        n = len(self.inputs)
        if self.variadic:
            if args:
                seq, rest = args[0], args[1:]
            else:
                seq, rest = kwargs.pop(self.inputs[0][1:], _MISSING), ()
            if seq is _MISSING:
                raise TypeError(f"{self.name}() missing required argument '{self.inputs[0][1:]}'")
            if isinstance(seq, Tensor) or not isinstance(seq, (list, tuple)):
                raise TypeError(f"{self.name}(): argument '{self.inputs[0][1:]}' (position 1) must "
                                f"be tuple of Tensors, not {type(seq).__name__}")
            inputs = tuple(seq)
        else:
            inputs = list(args[:n])
            rest = args[n:]
            for name in self.inputs[len(inputs):]:
                value = kwargs.pop(name, _MISSING)
                if value is _MISSING and name == "self":
                    value = kwargs.pop("input", _MISSING)
                if value is _MISSING:
                    raise TypeError(f"{self.name}() missing required argument '{name}'")
                inputs.append(value)
        if len(rest) > len(self.attr_names):
            raise TypeError(f"{self.name}() takes {n + len(self.attr_names)} positional arguments "
                            f"but {n + len(rest)} were given")
        attrs = list(rest) + list(self.attr_defaults[len(rest):])
        for key, value in kwargs.items():
            try:
                i = self.attr_names.index(key)
            except ValueError:
                raise TypeError(f"{self.name}() got an unexpected keyword argument '{key}'") from None
            if i < len(rest):
                raise TypeError(f"{self.name}() got multiple values for argument '{key}'")
            attrs[i] = value
        for name, value in zip(self.attr_names, attrs):
            if value is _MISSING:
                raise TypeError(f"{self.name}() missing required argument '{name}'")
        return inputs, tuple(attrs)

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != len(self.inputs) or self.default_attrs is None or self.variadic:
            inputs, attrs = self.bind(args, kwargs)
        else:
            inputs, attrs = args, self.default_attrs
        return self.apply(inputs, attrs)

    def result_dtype(self, tensors, scalars):
        """The output dtype by the op's rule (None: whatever the forward returns)."""
        rule = self.dtype_rule
        if rule == "promote" or rule == "float":
            d = dtypes.result_type(tensors, scalars)
            if rule == "float" and d.category < 2:
                d = dtypes.get_default_dtype()
            return d
        if rule == "bool":
            return dtypes.bool_
        if rule == "long":
            return dtypes.int64
        return None

    def apply(self, inputs, attrs):
        datas = []
        need_grad = False
        dual = False
        npd = None      # the common NumPy dtype of the tensor inputs, if they share one
        mixed = False   # tensors of different dtypes, or numbers that may promote them
        n_tensors = 0
        for x in inputs:
            if isinstance(x, Tensor):
                d = x._data
                datas.append(d)
                n_tensors += 1
                if x.requires_grad_flag:
                    need_grad = True
                if x._fw is not None:
                    dual = True
                if npd is None:
                    npd = d.dtype
                elif d.dtype != npd:
                    mixed = True
            elif isinstance(x, (float, int)) and not isinstance(x, bool):
                datas.append(x)
                if type(x) is not float and type(x) is not int:
                    datas[-1] = x = x.item() if isinstance(x, np.generic) else x
                if npd is not None and npd.kind not in "fc":
                    mixed = True
            elif isinstance(x, numbers.Number):
                datas.append(x.item() if isinstance(x, np.generic) else x)
                mixed = True
            else:
                raise TypeError(_bad_argument(self, x, len(datas)))
        if not n_tensors:
            raise TypeError(_bad_argument(self, inputs[0] if inputs else None, 0))
        rule = self.dtype_rule
        rd = None
        if rule == "promote" or rule == "float":
            if mixed or npd.kind not in "fc" or (npd.kind == "f" and npd.itemsize < 4):
                rd = self.result_dtype([x for x in inputs if isinstance(x, Tensor)],
                                       [x for x in inputs if not isinstance(x, Tensor)]).np
                for i, d in enumerate(datas):
                    if type(d) is np.ndarray and d.dtype != rd:
                        datas[i] = d.astype(rd)
            else:
                rd = npd
        elif rule == "bool":
            rd = _BOOL
        elif rule == "long":
            rd = _LONG
        if self.variadic:
            out = self.forward(datas, *attrs)
        else:
            out = self.forward(*datas, *attrs)
        if self.n_outputs == 1:
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            if rd is not None and out.dtype != rd:
                out = out.astype(rd)
            result = _new_tensor(_Tensor)
            result._data = out
            result.grad_fn = None
            result.requires_grad_flag = False
            result._output_nr = 0
            result._version = [0]
            results = (result,)
        else:
            results = tuple(Tensor._make(np.asarray(o), None, 0, False) for o in out)
        if self.view:
            for r in results:
                _mark_view(r, inputs[0])
        if need_grad and GradMode.enabled and self.differentiable:
            self._record(inputs, attrs, results)
        if dual and ForwardAD.level is not None:
            _forward_ad(self, inputs, attrs, results)
        if self.n_outputs == 1:
            return result
        if self.output_wrapper is not None:
            return self.output_wrapper(results)
        return results

    def _record(self, inputs, attrs, results):
        """Make the backward node of this call and attach it to the outputs."""
        node = self.node_cls()
        edges = []
        meta = []
        for x in inputs:
            if isinstance(x, Tensor):
                fn = x.grad_fn
                if fn is not None:
                    edges.append((fn, x._output_nr))
                elif x.requires_grad_flag:
                    edges.append((x._accumulator(), 0))
                else:
                    edges.append(_NO_EDGE)
                meta.append((x._data.shape, x._data.dtype))
            else:
                edges.append(_NO_EDGE)
                meta.append(None)
        if self.edge_index is None:
            node.next_functions = tuple(edges)
        else:
            node._input_edges = tuple(edges)
            node.next_functions = tuple(edges[i] for i in self.edge_index)
        node._attrs = attrs
        node._meta = meta
        if len(results) > 1:
            node.num_outputs = len(results)
            node._out_meta = tuple((r._data.shape, r._data.dtype) for r in results)
        for nr, r in enumerate(results):
            if r._data.dtype.kind in "fc":
                r.grad_fn = node
                r._output_nr = nr
                r.requires_grad_flag = True
        node._save(inputs, results)
        if NodeRecorder.callback is not None:
            NodeRecorder.callback(node, inputs, results)
        if AnomalyMode.enabled:
            node._anomaly = (AnomalyMode.location() if AnomalyMode.location
                             else "".join(traceback.format_stack()[:-3]))


_Tensor = Tensor
_new_tensor = Tensor.__new__
_NO_EDGE = (None, 0)
_BOOL = np.dtype(np.bool_)
_LONG = np.dtype(np.int64)


def _mark_view(result, base):
    if isinstance(base, Tensor):
        result._version = base._version
        result._base = base._base if base._base is not None else base


def _bad_argument(op, x, position):
    return (f"{op.name}(): argument '{(op.inputs + ('other',))[min(position, len(op.inputs))].lstrip('*')}' "
            f"(position {position + 1}) must be Tensor, not {type(x).__name__}")


class OpNode(Node):
    """The grad_fn of an op's outputs; one subclass per op, named like PyTorch's."""

    __slots__ = ("_attrs", "_meta", "_saved_in", "_saved_out")
    num_outputs = 1

    def _save(self, inputs, results):
        op = self.op
        saved_in = None
        saved_out = None
        nf = self._edges()
        for i, (indices, result) in enumerate(op.save_plan):
            if op.per_input and nf[i][0] is None:
                continue
            if indices:
                if op.variadic:
                    saved_in = tuple(SavedTensor(x) if isinstance(x, Tensor) else x for x in inputs)
                else:
                    if saved_in is None:
                        saved_in = [None] * len(inputs)
                    for j in indices:
                        if saved_in[j] is None:
                            x = inputs[j]
                            saved_in[j] = SavedTensor(x) if isinstance(x, Tensor) else x
            if result and saved_out is None:
                saved_out = SavedOutput(results[0])
        self._saved_in = saved_in
        self._saved_out = saved_out

    def release(self):
        if self._saved_in is not None or self._saved_out is not None:
            self._saved_in = RELEASED
            self._saved_out = None

    def saved_values(self):
        """The values saved for backward, by name (for display and `_saved_*` inspection)."""
        if self._saved_in is RELEASED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        names = [n.lstrip("*") for n in self.op.inputs]
        out = {}
        if self._saved_in is not None:
            for name, s in zip(names, self._saved_in):
                if s is not None:
                    out[name] = s.unpack() if isinstance(s, SavedTensor) else s
        if self._saved_out is not None:
            out["result"] = self._saved_out.unpack_for(self)
        return out

    def _resolve(self, kinds, g):
        args = []
        saved_in = self._saved_in
        for kind, idx in kinds:
            if kind == G:
                args.append(g)
            elif kind == INPUT:
                if self.op.variadic:
                    args.append([s.unpack() if isinstance(s, SavedTensor) else s for s in saved_in])
                else:
                    s = saved_in[idx]
                    args.append(s.unpack() if isinstance(s, SavedTensor) else s)
            elif kind == RESULT:
                args.append(self._saved_out.unpack_for(self))
            elif kind == ATTR:
                args.append(self._attrs[idx])
            elif kind == SHAPE:
                args.append(self._meta[idx][0])
            elif kind == DTYPE:
                args.append(dtypes.from_numpy_dtype(self._meta[idx][1]))
            else:
                args.append([m[0] if m else None for m in self._meta])
        return args

    def apply(self, grads):
        op = self.op
        if self._saved_in is RELEASED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        if op.n_outputs == 1:
            g = grads[0]
        else:
            g = [gr if gr is not None else _zeros_for(self, nr) for nr, gr in enumerate(grads)]
        nf = self._edges()
        if op.per_input:
            out = []
            for i, entry in enumerate(op.vjps):
                if nf[i][0] is None or entry is None:
                    out.append(None)
                else:
                    fn, kinds = entry
                    out.append(fn(*self._resolve(kinds, g)))
        else:
            fn, kinds = op.vjps[0]
            out = fn(*self._resolve(kinds, g))
            if not op.variadic and len(nf) == 1:
                out = [out]
            else:
                out = list(out)
        meta = self._meta
        for i, gi in enumerate(out):
            if gi is None:
                continue
            if nf[i][0] is None:
                out[i] = None
                continue
            shape, dt = meta[i]
            if gi._data.shape != shape:
                gi = _reduce_to(self, i, gi, shape)
            if gi._data.dtype != dt:
                gi = gi.to(dtypes.from_numpy_dtype(dt))
            out[i] = gi
        if op.edge_index is not None:
            return [out[i] for i in op.edge_index]
        return out

    def _edges(self):
        """The edge of each input, aligned with the op's inputs."""
        return self.next_functions if self.op.edge_index is None else self._input_edges


def _zeros_for(node, nr):
    """A zero gradient for an output that received none (multi-output ops)."""
    shape, npd = node._out_meta[nr]
    return Tensor._make(np.zeros(shape, npd), None, 0, False)


def _reduce_to(node, i, g, shape):
    try:
        np.broadcast_shapes(g._data.shape, shape)
        ok = np.broadcast_shapes(g._data.shape, shape) == g._data.shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(messages.INVALID_GRADIENT_SHAPE.format(
            node=node.name(), index=i, got=list(g._data.shape), expected=list(shape)))
    return g.sum_to_size(shape)


def _forward_ad(op, inputs, attrs, results):
    """Propagate tangents (forward-mode AD) through op."""
    from ..engine.forward_ad import _set_tangent
    tangents = [x._fw if isinstance(x, Tensor) else None for x in inputs]
    if op.jvp == "linear":
        from . import zeros_like
        ts = [t if t is not None else (zeros_like(x) if isinstance(x, Tensor) else x)
              for t, x in zip(tangents, inputs)]
        out = op.apply(ts, attrs)
    else:
        entries = op.vjps if op.jvp == "elementwise" else op.jvps
        if entries is None:
            raise RuntimeError(f"Trying to use forward AD with {op.name} that does not support it")
        fake = _TangentContext(op, inputs, attrs, results)
        out = None
        if op.per_input or op.jvp != "elementwise" and len(entries) == len(inputs):
            for i, entry in enumerate(entries):
                if tangents[i] is None or entry is None:
                    continue
                fn, kinds = entry
                contrib = fn(*fake.resolve(kinds, tangents[i]))
                out = contrib if out is None else out + contrib
        else:
            fn, kinds = entries[0]
            out = fn(*fake.resolve(kinds, tangents if op.variadic or len(inputs) > 1
                                   else tangents[0]))
    if op.n_outputs == 1:
        r = results[0]
        if out._data.shape != r._data.shape:
            out = out.expand(r._data.shape)
        if out._data.dtype != r._data.dtype:
            out = out.to(r.dtype)
        _set_tangent(r, out)
    else:
        for r, t in zip(results, out):
            if r._data.dtype.kind in "fc":
                _set_tangent(r, t)


class _TangentContext:
    """Resolves JVP parameters from live inputs and outputs (nothing is saved)."""

    def __init__(self, op, inputs, attrs, results):
        self.op, self.inputs, self.attrs, self.results = op, inputs, attrs, results

    def resolve(self, kinds, t):
        args = []
        for kind, idx in kinds:
            if kind == G:
                args.append(t)
            elif kind == INPUT:
                x = list(self.inputs) if self.op.variadic else self.inputs[idx]
                args.append(_primal(x))
            elif kind == RESULT:
                args.append(_primal(self.results[0]))
            elif kind == ATTR:
                args.append(self.attrs[idx])
            elif kind == SHAPE:
                args.append(self.inputs[idx]._data.shape)
            elif kind == DTYPE:
                args.append(self.inputs[idx].dtype)
            else:
                args.append([x._data.shape for x in self.inputs])
        return args


def _primal(x):
    if isinstance(x, list):
        return [_primal(v) for v in x]
    if isinstance(x, Tensor) and x._fw is not None:
        p = Tensor._make(x._data, x.grad_fn, x._output_nr, x.requires_grad_flag)
        p._version = x._version
        return p
    return x


def register(op):
    """Add op to the table (public ops become functions and, if declared, methods)."""
    OPS[op.name] = op
    return op


def alias(name, target):
    """Make `name` another public name (function and method) of the op `target`."""
    ALIASES[name] = target


class Composed(Op):
    """An op PyTorch implements by calling other ops (`2 / x` is reciprocal then mul, `square`
    is pow): calling it runs `compose(*inputs, *attrs)` on tensors, so the graph holds PyTorch's
    nodes; the declared forward and VJPs document it and drive the table's tests (or
    vjp=COMPOSITION says the derivative is the composition's own)."""

    def __init__(self, name, compose, forward, vjp, **kw):
        super().__init__(name, forward, vjp, **kw)
        self.compose = compose

    def apply(self, inputs, attrs):
        if self.variadic:
            return self.compose(list(inputs), *attrs)
        return self.compose(*inputs, *attrs)


class Plain:
    """A table entry that is a plain function (creation ops: nothing to differentiate)."""

    method = inplace = False
    function = public = True

    def __init__(self, name, fn, doc, kind="creation", signature=None):
        self.name, self.fn, self.doc, self.kind, self.signature = name, fn, doc, kind, signature
        self.formula = ""
        self.__doc__ = doc

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)

    def __repr__(self):
        return f"<function {self.name}>"


class Overload:
    """A public name that picks one of several ops by its arguments (PyTorch's overloads:
    pow(Tensor, Scalar) is PowBackward0, pow(Tensor, Tensor) PowBackward1, …)."""

    def __init__(self, name, choose, ops, doc="", method=True, kind="elementwise", signature=None,
                 formula=""):
        self.name = name
        self.choose = choose
        self.ops = ops
        self.doc = doc
        self.method = method
        self.function = True
        self.inplace = any(o.inplace for o in ops)
        self.kind = kind
        self.signature = signature
        self.formula = formula
        self.public = True

    def __call__(self, *args, **kwargs):
        return self.choose(*args, **kwargs)(*args, **kwargs)


def as_tensor_arg(x, like=None):
    """Python data handed where a tensor is required (indices, masks) as a Tensor."""
    if isinstance(x, Tensor):
        return x
    return Tensor._make(to_array(x), None, 0, False)


def wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be int, not {type(dim).__name__}")
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return int(dim) % n

