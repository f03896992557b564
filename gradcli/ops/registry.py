"""The op table machinery: one `Op` declaration per operation, and the dispatcher that runs its
forward on NumPy arrays and records its backward node.

An op declares its forward (a NumPy function), its derivative formulas as derivatives.yaml
writes them (`"self: grad * self.cos()"`, one per differentiable input, written in Tensor
operations so that create_graph differentiates them again; gradcli.ops.derivatives compiles
them), its JVP, its grad_fn name, method and operator names, a doc line, and sample domains for
tests.  What a node saves for backward is derived from the names the formulas read: a formula
that reads `self` saves the input `self`, one that reads `result` saves the output.  So an op
saves exactly what its formulas need, only for inputs that need a gradient, like PyTorch.
"""

import numbers
import traceback
from weakref import WeakSet as _WeakSet

import numpy as np

from ..engine import dtypes, messages
from ..engine.grad_mode import GradMode, InferenceMode
from ..engine.graph import (_ZERO_NRS, RELEASED, AnomalyMode, Node, NodeRecorder,
                            PackedTensor, SavedHooks, _sequence, version_error)
from ..engine.graph import tensor_gradient as _tensor_gradient
from ..engine.tangents import ForwardAD, Unbatchable, set_tangent as _set_tangent
from ..engine.tensor import Tensor, to_array
from ..engine.torch_classes import TorchClass, torch_repr
from . import derivatives, formulas

OPS = {}            # public name -> Op or Overload, in declaration order
ALIASES = {}        # alternative public name -> name in OPS (`divide` -> `div`)
_MISSING = object()

G, INPUT, RESULT, ATTR, SHAPE, DTYPE, SHAPES = range(7)
# dtype rules: promote the inputs (PyTorch's result_type), a fixed dtype, or the forward's own
_PROMOTE, _FIXED, _AS_IS = "promote", "fixed", "as is"
_UNARY = "unary"  # a _PairNode's `_fb` when its op has one input


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


_PREPARED = frozenset({"vjps", "jvps", "saves", "save_inputs", "save_result", "node_cls",
                       "formula_order", "check_result"})
_HAND_WRITTEN = object()  # (formula=: the text of a VJP written as a function, not declared)


class Op:
    """One operation of the table."""

    call = None  # one- and two-input ops: call(*inputs, attrs), apply without the tuple
    operator_call = None  # two-input ops: call for `a op b` (NotImplemented, not TypeError)
    # several outputs: the formula gets None for an output that received no gradient (PyTorch's
    # undefined grad, which formulas such as var_mean_backward test), not zeros
    undefined_grads = False
    # shown_saved(name, attrs, value): the `_saved_<attr>` PyTorch shows, where its schema
    # differs from the call's (var's `unbiased` folded into `correction`); hidden_saved: the
    # attributes PyTorch's node does not save
    shown_saved = None
    hidden_saved = ()
    extra_saved = {}  # `_saved_<name>` -> fn(node): what PyTorch's node saves that no formula reads

    def __init__(self, name, forward, vjp=None, *, inputs=("self",), attrs=(), jvp="elementwise",
                 grad_fn=None, method=True, function=True, inplace=False, doc="",
                 formula=_HAND_WRITTEN,
                 samples=(), dtype="promote", differentiable=True, outputs=1, view=False,
                 public=True, kind="elementwise", signature=None, output_wrapper=None,
                 edges=None, on_floats=None, elementwise_jvp=False):
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
        # vjp: the op's derivative formulas, declared as derivatives.yaml writes them ("self:
        # grad * self.cos()", gradcli.ops.derivatives), compiled at first use; the text
        # explain and `gradcli ops` show (self.formula) is derived from the same declaration
        declared = derivatives.is_declaration(vjp)
        if declared and formula is not _HAND_WRITTEN:
            raise TypeError(f"op {name}: the formula text is derived from the declaration")
        self.declaration = vjp if declared else None  # (and jvp, when it is one)
        if not declared and not (vjp == COMPOSITION and formula is _HAND_WRITTEN):
            self.formula = "" if formula is _HAND_WRITTEN else formula
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
        if declared:  # one formula per input, or one for them all (`self, other: ...`)
            entries = derivatives.entry_names(vjp)
            self.per_input = not (len(entries) == 1 and (len(entries[0]) > 1 or (
                len(names) == 1 and entries[0] == (names[0],))))
        else:
            self.per_input = isinstance(vjp, tuple)
        # the forward on two Python floats, for 0-d float64 operands at the default attributes:
        # only for operations IEEE 754 rounds exactly (+ - * /), so that the result is NumPy's
        # to the bit, in a third of the time NumPy's ufunc machinery takes on 0-d arrays
        self.on_floats = on_floats
        self.jvp = jvp
        # a JVP of its own that is elementwise too: it broadcasts over a batch of tangents
        self.elementwise_jvp = elementwise_jvp or jvp in ("elementwise", "linear")
        self.n_inputs = len(self.inputs)
        self.rule = {"promote": _PROMOTE, "float": _PROMOTE, "bool": _FIXED,
                     "long": _FIXED}.get(dtype, _AS_IS)
        self.fixed_dtype = {"bool": _BOOL, "long": _LONG}.get(dtype)
        self._declared = (vjp, jvp)  # the rest is made by prepare(), at the op's first use

    LAZY_ATTRIBUTES = _PREPARED  # (made by prepare(), at first use: see __getattr__)

    def __getattr__(self, name):
        # only for attributes not set yet: those prepare() makes
        if name in _PREPARED and "_declared" in self.__dict__:
            self.prepare()
            return getattr(self, name)
        if name == "formula" and self.__dict__.get("derived"):  # the formulas of the ops it runs
            self.formula = " | ".join(f"{OPS[n].grad_fn_name}: {OPS[n].formula}"
                                      for n in getattr(self, "via", ()) if OPS[n].formula)
            return self.formula
        if name == "formula" and "_declared" in self.__dict__:
            self.formula = derivatives.text(self._declared[0], self.name)
            return self.formula
        if name == "formula" and "_text_from" in self.__dict__:  # (prepared already)
            self.formula = derivatives.text(self.__dict__.pop("_text_from"), self.name)
            return self.formula
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def prepare(self):
        """Make what the op's first use needs: its VJPs' and JVPs' parameter kinds, what its
        node saves, its node class and the fast paths of one- and two-input ops.  Done once,
        at first use rather than at import: for the whole table it takes longer than the rest
        of a one-shot `gradcli eval` (reading an attribute of those makes it; Tensor's methods
        and operators are made on first use too, see gradcli.ops.install)."""
        declared = self.__dict__.pop("_declared", None)
        if declared is None:
            return self
        vjp, jvp = declared
        if derivatives.is_declaration(vjp):
            if "formula" not in self.__dict__:
                self._text_from = vjp
            vjp = derivatives.compile_vjps(self, vjp, self.per_input)
        if derivatives.is_declaration(jvp):
            jvp = derivatives.compile_jvps(self, jvp)
        if vjp is None:
            self.vjps = ()
        elif self.per_input:
            self.vjps = tuple(None if f is None else (f, self._param_kinds(f)) for f in vjp)
        else:
            self.vjps = ((vjp, self._param_kinds(vjp)),)
        if jvp not in ("elementwise", "linear", None) and isinstance(jvp, tuple):
            self.jvps = tuple(None if f is None else (f, self._param_kinds(f)) for f in jvp)
        elif callable(jvp):
            self.jvps = ((jvp, self._param_kinds(jvp)),)
        else:
            self.jvps = None
        self.saves = self._saved_names()
        # the order PyTorch's generated backward computes one formula per input in: by the
        # inputs' names, sorted (derivatives.yaml's keys: `other` before `self`)
        names = [n.lstrip("*") for n in self.inputs]
        self.formula_order = tuple(sorted(range(len(self.vjps)),
                                          key=lambda i: names[i] if i < len(names) else ""))
        # per input that some VJP reads: (input index, indices of the VJPs that read it, or None
        # when one VJP serves all inputs and the input is always saved)
        readers = {}
        result_readers = []
        for i, entry in enumerate(self.vjps):
            if entry is None:
                continue
            for kind, j in entry[1]:
                if kind == INPUT:
                    readers.setdefault(j, []).append(i)
                elif kind == RESULT:
                    result_readers.append(i)
        self.save_inputs = tuple((j, tuple(sorted(set(r))) if self.per_input else None)
                                 for j, r in sorted(readers.items()))
        # (the output is saved whenever a formula reads it, whichever inputs need a gradient:
        # PyTorch's generated code guards saved inputs, not the saved result)
        self.save_result = None if result_readers else False
        # ... and PyTorch's generated backward unpacks every saved value first, so a saved
        # output written in place since is an error even where no formula that runs reads it
        # (pow(x, c) with a constant tensor c: only the exponent's formula reads the result)
        self.check_result = bool(self.per_input and result_readers and len(set(result_readers))
                                 < sum(1 for e in self.vjps if e is not None))
        pair = (not self.variadic and self.n_outputs == 1 and self.edge_index is None
                and self.n_inputs in (1, 2))
        base = OpNode if not pair else _UnaryNode if self.n_inputs == 1 else _BinaryNode
        self.node_cls = type(self.grad_fn_name, (base,), {"__slots__": (), "op": self,
                                                          **saved_value_properties(self)})
        if pair and type(self).apply is Op.apply:
            self.apply, self.call = _specialised_apply(self)
            if self.n_inputs == 2:  # the Python operator: the same, NotImplemented for operands
                #                     it cannot take (Python then says `unsupported operand`)
                self.operator_call = self.operator_variant()
        if pair and self.vjps and (self.per_input or self.n_inputs == 1):
            self.node_cls.apply, self.node_cls.apply_f = _specialised_vjp(self)
            self.node_cls._donates = None  # not known yet: see formulas_take_gradient
        return self

    def formulas_take_gradient(self):
        """Whether each of the op's VJPs reads the gradient once, as an operand of an
        arithmetic operator, so that its node may be offered the gradient's array
        (engine.graph._Donation)."""
        return all(entry is None or _reads_g_once_by_operator(entry[0]) for entry in self.vjps)

    def formula_at(self, attrs):
        """The shown derivative formula with these attribute values in the attributes' place
        (explain: `x + y` shows `d/dother = 1`, not `1 if alpha == 1 else alpha`)."""
        if self.declaration is None:
            return self.formula
        return derivatives.text(self.declaration, self.name, dict(zip(self.attr_names, attrs)))

    def operator_variant(self, swapped=False):
        """The specialised call of a two-input op as a Python operator: NotImplemented for
        operands it cannot take.  swapped=True: for `2 * x`, which PyTorch computes as
        mul(x, 2); its recording notes that the program wrote the operands the other way round
        (for explain)."""
        general = self._apply_general

        def general_or_not_implemented(inputs, attrs):
            try:
                return general(inputs, attrs)
            except TypeError:
                return NotImplemented
        return _specialised_apply(self, general_or_not_implemented, swapped)[1]

    # -------------------------------------------------------------- declaration helpers
    def _param_kinds(self, fn):
        code = fn.__code__
        kinds = []
        names = [n.lstrip("*") for n in self.inputs]
        for p in code.co_varnames[:code.co_argcount]:
            if p in ("g", "t", "grad", "tangents") or p.endswith("_t") and p[:-2] in names:
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
        if kwargs or len(args) != self.n_inputs or self.default_attrs is None or self.variadic:
            inputs, attrs = self.bind(args, kwargs)
            return self.apply(inputs, attrs)
        call = self.call  # the specialised path of a prepared one- or two-input op
        if call is not None:
            return call(*args)
        return self.apply(args, self.default_attrs)

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
        """Run the op on tensors (and Python numbers): forward on the arrays, then record the
        backward node and propagate tangents when needed."""
        # The common case inline: plain tensors and Python floats/ints, the tensors of one
        # dtype that needs no promotion; anything else takes the general path.
        if self.variadic:
            return self._apply_general(inputs, attrs)
        datas = []
        need_grad = dual = False
        npd = None
        for x in inputs:
            tx = type(x)
            if tx is _Tensor:
                d = x._data
                if npd is None:
                    npd = d.dtype
                elif d.dtype is not npd:
                    return self._apply_general(inputs, attrs)
                if x.requires_grad_flag:
                    need_grad = True
                if x._fw is not None:
                    dual = True
                datas.append(d)
            elif tx is float or tx is int:
                datas.append(x)
            else:
                return self._apply_general(inputs, attrs)
        rule = self.rule
        if rule is _PROMOTE:
            if npd is not _F64 and npd is not _F32:
                return self._apply_general(inputs, attrs)
            rd = npd
        elif npd is None:
            return self._apply_general(inputs, attrs)
        else:
            rd = self.fixed_dtype
        out = self.forward(*datas, *attrs) if attrs else self.forward(*datas)
        if self.n_outputs != 1:
            return self._finish(inputs, attrs, out, rd, need_grad, dual)
        if type(out) is not _ndarray:
            out = _asarray(out)
        if rd is not None and out.dtype is not rd and out.dtype != rd:
            out = out.astype(rd)
        result = _new_tensor(_Tensor)
        result._data = out
        result.grad_fn = None
        result.requires_grad_flag = False
        result._output_nr = 0
        result._vc = _INFERENCE.counter
        if self.view:
            _mark_view(result, inputs[0])
        if need_grad and GradMode.enabled and self.differentiable:
            self._record(inputs, attrs, (result,))
        if dual and ForwardAD.level is not None:
            _forward_ad(self, inputs, attrs, (result,))
        return result

    def _apply_general(self, inputs, attrs):
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
        return self._finish(inputs, attrs, out, rd, need_grad, dual)

    def _finish(self, inputs, attrs, out, rd, need_grad, dual):
        """Wrap forward's output(s), then record and propagate tangents."""
        if self.n_outputs == 1:
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            if rd is not None and out.dtype != rd:
                out = out.astype(rd)
            results = (Tensor._make(out, None, 0, False),)
        else:
            results = tuple(Tensor._make(np.asarray(o), None, 0, False) for o in out)
        if self.view:
            for r in results:
                _mark_view(r, inputs[0])
                if self.n_outputs != 1 and GradMode.enabled:
                    r._multi_output_view = True
        if need_grad and GradMode.enabled and self.differentiable:
            self._record(inputs, attrs, results)
        if dual and ForwardAD.level is not None:
            _forward_ad(self, inputs, attrs, results)
        if self.n_outputs == 1:
            return results[0]
        if self.output_wrapper is not None:
            return self.output_wrapper(results)
        return results

    def _record(self, inputs, attrs, results):
        """Make the backward node of this call and attach it to the outputs."""
        node = _new_node(self.node_cls)
        node._seq = next(_sequence)
        node._deps = 0
        n = len(inputs)
        fns = [None] * n
        nrs = None
        meta = [None] * (2 * n)  # shape and dtype of each tensor input
        for i in range(n):
            x = inputs[i]
            if isinstance(x, Tensor):
                fn = x.grad_fn
                if fn is not None:
                    fns[i] = fn
                    nr = x._output_nr
                    if nr:
                        if nrs is None:
                            nrs = [0] * n
                        nrs[i] = nr
                elif x.requires_grad_flag:
                    fns[i] = x._accumulator()
                d = x._data
                meta[2 * i] = d.shape
                meta[2 * i + 1] = d.dtype
        fns = tuple(fns)
        if nrs is None:
            nrs = _ZERO_NRS[n] if n < len(_ZERO_NRS) else (0,) * n
        else:
            nrs = tuple(nrs)
        if self.edge_index is None:
            node._next_fns = fns
            node._next_nrs = nrs
        else:
            node._input_fns = fns
            node._next_fns = tuple(fns[i] for i in self.edge_index)
            node._next_nrs = tuple(nrs[i] for i in self.edge_index)
        node._attrs = attrs
        node._meta = tuple(meta)
        if len(results) > 1:
            node.num_outputs = len(results)
            node._out_meta = tuple((r._data.shape, r._data.dtype) for r in results)
        for nr, r in enumerate(results):
            if r._data.dtype.kind in "fc":
                r.grad_fn = node
                r._output_nr = nr
                r.requires_grad_flag = True
        self._save(node, inputs, fns, results)
        if NodeRecorder.callback is not None:
            NodeRecorder.callback(node, inputs, results)  # all inputs (explain names them)
        if AnomalyMode.enabled:
            node._anomaly = (AnomalyMode.location() if AnomalyMode.location
                             else "".join(traceback.format_stack()[:-3]))

    def _save(self, node, inputs, fns, results):
        """Save what the VJPs of inputs that need a gradient read (like derivatives.yaml's
        saved variables): input values in a tuple aligned with the inputs (None where nothing
        is saved), their versions only when one is not 0, and the output with its version."""
        saved = None
        if self.save_inputs:
            if self.variadic:
                saved = tuple(inputs)
            else:
                values = [None] * len(inputs)
                every = True
                for j, readers in self.save_inputs:
                    if readers is not None:
                        for i in readers:
                            if fns[i] is not None:
                                break
                        else:
                            every = False
                            continue
                    values[j] = inputs[j]
                if every and len(self.save_inputs) == len(inputs) and type(inputs) is tuple:
                    saved = inputs
                else:
                    saved = tuple(values)
            versions = None
            for j, x in enumerate(saved):
                if isinstance(x, Tensor):
                    vc = x._vc
                    if vc is not None and vc[0]:
                        if versions is None:
                            versions = [0] * len(saved)
                        versions[j] = vc[0]
            if versions is not None:
                node._saved_ver = tuple(versions)
        node._saved_in = saved
        saved_out = None
        readers = self.save_result
        if readers is not False:
            if readers is not None:
                for i in readers:
                    if fns[i] is not None:
                        break
                else:
                    readers = False
            if readers is not False:
                r = results[0]
                vc = r._counter
                saved_out = (r._data, r._output_nr, vc, vc[0])
        node._saved_out = saved_out
        if SavedHooks.stack:
            _pack_saved(node, self, results[0])


# ----------------------------------------------------------------------------------------------
# Specialised code for one- and two-input ops (most calls): the same steps as Op.apply,
# _record/_save and OpNode.apply, with the op's constants bound in closures and the loops
# unrolled.  Anything unusual (other argument types, dtypes to promote) takes the general path.

def _pack_saved(node, op, result):
    """Hand what node saved to the pack hook of the innermost saved_tensors_hooks, in PyTorch's
    order (the order the formulas name them), and keep what it returns instead."""
    saved = node._saved_in
    names = [n.lstrip("*") for n in op.inputs]
    for name in op.saves:
        if name == "result":
            if node._saved_out is not None:
                _put_packed(node, RESULT, 0, PackedTensor(result, output=True))
        elif saved is not None and saved is not RELEASED:
            for j in (range(len(saved)) if op.variadic else (names.index(name),)):
                if isinstance(saved[j], Tensor):
                    _put_packed(node, INPUT, j, PackedTensor(saved[j]))


def _put_packed(node, kind, index, packed):
    """Keep PackedTensor packed in place of node's saved output (kind RESULT) or its saved
    input index."""
    if kind == RESULT:
        node._saved_out = (packed, node._saved_out[1], None, None)
    else:
        values = list(node._saved_in)
        values[index] = packed
        node._saved_in = tuple(values)


def float64_ufunc(op):
    """The NumPy ufunc that computes one-input op op on float64 values (its forward, or the
    ufunc its forward wraps, see elementwise._via_float64), or None."""
    f = op.forward
    if op.n_inputs != 1 or op.attr_names:
        return None
    if not isinstance(f, np.ufunc):
        f = getattr(f, "float64_ufunc", None)
    if isinstance(f, np.ufunc) and f.nin == 1 and f.nout == 1 and "d->d" in f.types:
        return f
    return None


def _save_plan(op, n):
    """For each combination of inputs having an edge (bit i: input i has one), what to save:
    (save input 0, [save input 1,] save the output)."""
    plan = []
    for mask in range(1 << n):
        has_edge = [bool(mask >> i & 1) for i in range(n)]
        row = [False] * n
        for j, readers in op.save_inputs:
            row[j] = readers is None or any(has_edge[i] for i in readers)
        readers = op.save_result
        row.append(readers is not False and (readers is None or any(has_edge[i] for i in readers)))
        plan.append(tuple(row))
    return tuple(plan)


def _specialised_apply(op, general=None, swapped=False):
    """(apply, call) for a one- or two-input op: apply(inputs, attrs) as Op.apply, and
    call(x, attrs) or call(a, b, attrs) taking the inputs as arguments (attrs defaulting to the
    op's defaults: operators and methods call it directly).  general: what handles the calls
    the specialised code does not (default: Op._apply_general); swapped: tell a recording that
    the program wrote the two inputs the other way round (Op.operator_variant)."""
    forward = op.forward
    # a forward wrapped only to translate its errors (arith.broadcasting) is called unwrapped,
    # and wrapped again only when it raises
    raw = getattr(forward, "__wrapped__", None) or forward
    checked = raw is not forward  # (inputs of different shapes go to the wrapped forward)
    # a NumPy ufunc without attributes, asked for an array even for 0-d results (out=...,
    # NumPy 2.1+; before, which is what Python 3.10 gets, its result is made an array)
    ufunc = isinstance(raw, np.ufunc) and not op.attr_names
    ufunc_out = ufunc and _UFUNC_OUT
    if general is None:
        general = op._apply_general
    promote = op.rule is _PROMOTE
    fixed = op.fixed_dtype
    view = op.view
    differentiable = op.differentiable
    node_cls = op.node_cls
    plan = _save_plan(op, op.n_inputs)
    no_saves = not any(any(row) for row in plan)
    defaults = op.default_attrs if op.default_attrs is not None else ()

    def observe(node, inputs, result):
        if NodeRecorder.callback is not None:
            if swapped:
                NodeRecorder.callback(node, inputs, (result,), swapped=True)
            else:
                NodeRecorder.callback(node, inputs, (result,))
        if AnomalyMode.enabled:
            node._anomaly = (AnomalyMode.location() if AnomalyMode.location
                             else "".join(traceback.format_stack()[:-4]))

    if op.n_inputs == 1:
        f64_ufunc = float64_ufunc(op)
        on_float = f64_ufunc if promote else None
        def record_one(x, attrs, result):
            node = _new_node(node_cls)
            node._seq = next(_sequence)
            node._deps = 0
            fn = x.grad_fn
            if fn is None:
                fn = x._accumulator()
                nrs = _NRS0
            else:
                nr = x._output_nr
                nrs = (nr,) if nr else _NRS0
            node._next_fns = None  # (made from _fa by the backward pass: see _PairNode)
            node._fa = fn
            node._fb = _UNARY
            node._next_nrs = nrs
            d = x._data
            shape = d.shape
            if shape:
                node._meta = (shape, d.dtype)
            else:  # a 0-d input: one meta tuple per dtype, shared (see _SCALAR_META)
                meta = _SCALAR_META.get(d.dtype)
                node._meta = meta[4] if meta is not None else _scalar_meta(d.dtype, 4)
            node._attrs = attrs
            save_out = False
            if no_saves:
                node._sst = None
            else:
                save_in, save_out = plan[1]
                if save_in:
                    node._sst = 1
                    node._s0 = x
                    vc = x._vc
                    if vc is not None and vc[0]:
                        node._saved_ver = (vc[0],)
                else:
                    node._sst = None
            if promote or result._data.dtype.kind in "fc":
                result.grad_fn = node
                result.requires_grad_flag = True
            if save_out:
                vc = result._vc
                if vc is None:
                    vc = result._vc = [0]
                node._saved_out = (result._data, 0, vc, vc[0])
            else:
                node._saved_out = None
            if SavedHooks.stack:
                _pack_saved(node, op, result)
            if NodeRecorder.callback is not None or AnomalyMode.enabled:
                observe(node, (x,), result)

        def call(x, attrs=defaults):
            if type(x) is not _Tensor:
                return general((x,), attrs)
            d = x._data
            if promote:
                rd = d.dtype
                if rd is not _F64 and rd is not _F32:
                    return general((x,), attrs)
            else:
                rd = fixed
            shape = d.shape
            if on_float is not None and rd is _F64 and not shape and attrs is defaults:
                # a NumPy ufunc on a Python float: its 0-d loop (the same bits) without
                # the array machinery (a quarter of the time)
                out = _array(on_float(float(d)))
            elif ufunc:
                try:
                    out = raw(d, out=...) if ufunc_out else _asarray(raw(d))
                except ValueError:
                    out = forward(d)
            else:
                try:
                    out = raw(d, *attrs) if attrs else raw(d)
                except ValueError:
                    if raw is forward:
                        raise
                    out = forward(d, *attrs)
                if type(out) is not _ndarray:
                    out = _asarray(out)
            if rd is not None and out.dtype is not rd and out.dtype != rd:
                out = out.astype(rd)
            result = _new_tensor(_Tensor)
            result._data = out
            result.grad_fn = None
            result.requires_grad_flag = False
            result._output_nr = 0
            result._vc = _INFERENCE.counter
            if view:
                _mark_view(result, x)
            if x.requires_grad_flag and differentiable and GradMode.enabled:
                record_one(x, attrs, result)
            if ForwardAD.level is not None and x._fw is not None:
                _forward_ad(op, (x,), attrs, (result,))
            return result

        def apply(inputs, attrs):
            if len(inputs) != 1:
                return general(inputs, attrs)
            return call(inputs[0], attrs)
        return apply, call

    def record(a, b, attrs, result, npd, shape):
        """(npd, shape: the dtype and shape call read off the first tensor input; both inputs'
        dtype, and their shape unless a broadcast was let through)"""
        node = _new_node(node_cls)
        node._seq = next(_sequence)
        node._deps = 0
        if type(a) is _Tensor:
            fa = a.grad_fn
            if fa is None:
                if a.requires_grad_flag:
                    ref = a._accum_ref  # the leaf's AccumulateGrad, while alive
                    fa = ref() if ref is not None else None
                    if fa is None:
                        fa = a._accumulator()
                na = 0
            else:
                na = a._output_nr
            sa = shape
            ta = npd
        else:
            fa = sa = ta = None
            na = 0
        if type(b) is _Tensor:
            fb = b.grad_fn
            if fb is None:
                if b.requires_grad_flag:
                    ref = b._accum_ref
                    fb = ref() if ref is not None else None
                    if fb is None:
                        fb = b._accumulator()
                nb = 0
            else:
                nb = b._output_nr
            sb = shape if checked or sa is None else b._data.shape
            tb = npd
        else:
            fb = sb = tb = None
            nb = 0
        node._next_fns = None
        node._fa = fa
        node._fb = fb
        node._next_nrs = (na, nb) if na or nb else _NRS00
        if shape or sb:
            node._meta = (sa, ta, sb, tb)
        else:  # 0-d inputs: one meta tuple per dtype and operand kinds, shared
            meta = _SCALAR_META.get(npd)
            kind = (sa is not None) | (sb is not None) << 1
            node._meta = meta[kind] if meta is not None else _scalar_meta(npd, kind)
        node._attrs = attrs
        save_out = False
        if no_saves:
            node._sst = None
        else:
            save_a, save_b, save_out = plan[(fa is not None) | (fb is not None) << 1]
            node._s0 = a if save_a else None
            node._s1 = b if save_b else None
            if save_a or save_b:
                node._sst = 1
                va = a._vc if save_a and type(a) is _Tensor else None
                vb = b._vc if save_b and type(b) is _Tensor else None
                if (va is not None and va[0]) or (vb is not None and vb[0]):
                    node._saved_ver = (0 if va is None else va[0], 0 if vb is None else vb[0])
            else:
                node._sst = None
        if promote or result._data.dtype.kind in "fc":  # promote: the output is float
            result.grad_fn = node
            result.requires_grad_flag = True
        if save_out:
            vc = result._vc
            if vc is None:
                vc = result._vc = [0]
            node._saved_out = (result._data, 0, vc, vc[0])
        else:
            node._saved_out = None
        if SavedHooks.stack:
            _pack_saved(node, op, result)
        if NodeRecorder.callback is not None or AnomalyMode.enabled:
            observe(node, (a, b), result)

    on_floats = op.on_floats if promote else None  # (its result is float64, the inputs' dtype)

    def call(a, b, attrs=defaults):
        ta = type(a)
        tb = type(b)
        if ta is _Tensor:
            da = a._data
            npd = da.dtype
            shape = da.shape
            if tb is _Tensor:
                db = b._data
                if db.dtype is not npd:
                    return general((a, b), attrs)
                if checked and db.shape != shape:  # a broadcast: within the element limit?
                    return general((a, b), attrs)
                need_grad = a.requires_grad_flag or b.requires_grad_flag
            elif tb is float or tb is int:
                db = b
                need_grad = a.requires_grad_flag
            else:
                return general((a, b), attrs)
        elif tb is _Tensor and (ta is float or ta is int):
            da = a
            db = b._data
            npd = db.dtype
            shape = db.shape
            need_grad = b.requires_grad_flag
        else:
            return general((a, b), attrs)
        if promote:
            if npd is not _F64 and npd is not _F32:
                return general((a, b), attrs)
            rd = npd
        else:
            rd = fixed
        out = None
        if (on_floats is not None and npd is _F64 and not shape
                and (attrs is defaults or attrs == defaults)):
            try:
                out = _array(on_floats(float(da), float(db)))
            except ArithmeticError:  # x / 0., a number too large for a float: NumPy's way
                pass
        if out is None:
            if ufunc:
                try:
                    out = raw(da, db, out=...) if ufunc_out else _asarray(raw(da, db))
                except ValueError:
                    out = forward(da, db)
            else:
                try:
                    out = raw(da, db, *attrs) if attrs else raw(da, db)
                except ValueError:
                    if raw is forward:
                        raise
                    out = forward(da, db, *attrs)
                if type(out) is not _ndarray:
                    out = _asarray(out)
            if rd is not None and out.dtype is not rd and out.dtype != rd:
                out = out.astype(rd)
        result = _new_tensor(_Tensor)
        result._data = out
        result.grad_fn = None
        result.requires_grad_flag = False
        result._output_nr = 0
        result._vc = _INFERENCE.counter
        if view:
            _mark_view(result, a)
        if need_grad and differentiable and GradMode.enabled:
            record(a, b, attrs, result, npd, shape)
        if ForwardAD.level is not None and ((ta is _Tensor and a._fw is not None)
                                            or (tb is _Tensor and b._fw is not None)):
            _forward_ad(op, (a, b), attrs, (result,))
        return result

    def apply(inputs, attrs):
        if len(inputs) != 2:
            return general(inputs, attrs)
        a, b = inputs
        return call(a, b, attrs)
    return apply, call


def _ufunc_out_works():
    """NumPy 2.1+: a ufunc called with out=... returns an array, never a NumPy scalar."""
    try:
        return type(np.add(np.zeros(()), 1.0, out=...)) is np.ndarray
    except TypeError:
        return False


_UFUNC_OUT = _ufunc_out_works()


def _reads_g_once_by_operator(fn):
    """Whether VJP fn reads its gradient parameter (the first) exactly once, as an operand of
    +, -, * or / (or unary -), so that the operator's op may compute into the gradient's array.
    Read from the formula's expression tree (gradcli.ops.formulas); False for a function
    written by hand."""
    return formulas.reads_gradient_once_by_operator(fn)


def _vjp_caller(entry):
    """A function (node, g) -> the VJP of entry = (fn, parameter kinds), for the usual
    parameter lists without going through OpNode._resolve.  g may be a float gradient (a
    Python float standing for a 0-d float64 tensor, see graph._run); the result may be one
    where the formula runs on Python floats (_on_floats), else it is a tensor."""
    if entry is None:
        return None
    fn, kinds = entry
    if fn is passthrough:
        return _passed_through
    if kinds == ((G, 0),):
        return lambda node, g: fn(g if type(g) is not float else _tensor_gradient(g))
    if len(kinds) == 2 and kinds[0] == (G, 0):
        kind, idx = kinds[1]
        methods = _float_formula(fn)  # (None: the tensor formula only)
        if kind == INPUT and methods is not None:  # (a _PairNode's saved input: _s0 or _s1)
            def call(node, g):
                x = node._s1 if idx else node._s0
                tx = type(x)
                if tx is _Tensor:
                    vc = x._vc
                    if vc is not None and vc[0] != (0 if node._saved_ver is None
                                                    else node._saved_ver[idx]):
                        node._unpack(idx)  # raises PyTorch's error
                elif tx is not float and tx is not int:
                    if isinstance(x, Tensor) or tx is PackedTensor:
                        x = node._unpack(idx)
                    return fn(g if type(g) is not float else _tensor_gradient(g), x)
                if type(g) is not float:
                    gd = g._data  # (as _floatable, inline: a tensor gradient leaves here)
                    if (gd.shape or gd.dtype is not _F64 or type(g) is not _Tensor
                            or GradMode.enabled or ForwardAD.level is not None):
                        return fn(g, x)
                if tx is _Tensor:
                    xd = x._data
                    if xd.dtype is not _F64 or xd.shape:
                        return fn(_tensor_gradient(g), x)
                    xf = _FloatArg(xd) if methods else float(xd)
                else:
                    xf = x
                r = _on_floats(fn, g, xf)
                return fn(_tensor_gradient(g), x) if r is None else r
            return call
        if kind == INPUT:
            def call(node, g):
                x = node._s1 if idx else node._s0
                if type(x) is _Tensor:
                    vc = x._vc
                    if vc is not None and vc[0] != (0 if node._saved_ver is None
                                                    else node._saved_ver[idx]):
                        node._unpack(idx)  # raises PyTorch's error
                elif isinstance(x, Tensor) or type(x) is PackedTensor:
                    x = node._unpack(idx)
                return fn(g if type(g) is not float else _tensor_gradient(g), x)
            return call
        if kind == RESULT and methods is not None:
            def call(node, g):
                r = node._unpack_result()
                rd = r._data
                if (type(r) is _Tensor and rd.dtype is _F64 and not rd.shape
                        and _floatable(g)):
                    f = _on_floats(fn, g, _FloatArg(rd) if methods else float(rd))
                    if f is not None:
                        return f
                return fn(g if type(g) is not float else _tensor_gradient(g), r)
            return call
        if kind == RESULT:
            return lambda node, g: fn(g if type(g) is not float else _tensor_gradient(g),
                                      node._unpack_result())
        if kind == ATTR:
            return lambda node, g: fn(g if type(g) is not float else _tensor_gradient(g),
                                      node._attrs[idx])
    methods = _float_formula(fn) if kinds and kinds[0] == (G, 0) else None
    if methods is not None:
        def call(node, g):
            if not _floatable(g):
                return fn(*node._resolve(kinds, g))
            args = node._resolve(kinds, g)
            floats = []
            for a in args[1:]:
                ta = type(a)
                if ta is _Tensor:
                    d = a._data
                    if d.dtype is not _F64 or d.shape:
                        break
                    floats.append(_FloatArg(d) if methods else float(d))
                elif ta is float or ta is int:
                    floats.append(a)
                else:
                    break
            else:
                r = _on_floats(fn, g, floats[0], floats[1:])
                if r is not None:
                    return r
            if type(g) is float:
                args[0] = _tensor_gradient(g)
            return fn(*args)
        return call
    return lambda node, g: fn(*node._resolve(
        kinds, g if type(g) is not float else _tensor_gradient(g)))


class _FloatArg(float):
    """A saved float64 value in a VJP run on Python floats (_on_floats), for formulas that call
    a method on it (`g * self.cos()`): its methods are the one-input ops that a NumPy ufunc
    computes (float64_ufunc), added by _float_method as formulas need them."""

    __slots__ = ()


def _float_method(name):
    """Give _FloatArg the method `name` if a one-input op of that name computes float64 values
    with a NumPy ufunc (what the op's own 0-d path calls); whether it has it."""
    if name in _FloatArg.__dict__:
        return True
    if name == "pow":  # (only x.pow(2) and x.pow(3): gradcli.ops.formulas)
        _FloatArg.pow = lambda self, k: float(self) * float(self) * (float(self) if k == 3
                                                                      else 1.0)
        return True
    op = OPS.get(name)
    uf = float64_ufunc(op) if isinstance(op, Op) and op.rule is _PROMOTE else None
    if uf is None or getattr(Tensor, name, None) is None:
        return False
    setattr(_FloatArg, name, lambda self: float(uf(float(self))))
    return True


def _float_formula(fn):
    """Whether VJP fn gives on Python floats what it gives on 0-d float64 tensors: made only
    of + - * / and unary - on its parameters and on int or float constants, and of methods of
    the saved values that are ufunc ops (`g * other`, `-g * self / (other * other)`,
    `g * self.cos()`).  On 0-d float64 tensors those operators compute on Python floats (an
    op's `on_floats`) and those methods call their ufunc on a Python float, so the bits are
    the same.  Read from the formula's expression tree (gradcli.ops.formulas): None when not
    (a global, a helper, `2 / x`, a method of a computed value, a function written by hand),
    else whether the formula calls methods (its saved value is then passed as a _FloatArg)."""
    return formulas.float_formula(fn, _float_method)


def _floatable(g):
    """Whether gradient g may be taken as a Python float: a float gradient, or a 0-d float64
    tensor outside create_graph and forward AD."""
    if type(g) is float:
        return True
    gd = g._data
    return not (gd.shape or gd.dtype is not _F64 or type(g) is not _Tensor or GradMode.enabled
                or ForwardAD.level is not None)


def _on_floats(fn, g, x, more=None):
    """VJP fn (see _float_formula) on Python floats, for a gradient g that may be one
    (_floatable) and the saved values x and *more as Python numbers (a saved tensor's value a
    _FloatArg when the formula calls its methods): the tensor formula's bits without an op
    call per operator.  The gradient as a float, or None where the tensor formula must run
    (x / 0: NumPy's inf or nan)."""
    gf = g if type(g) is float else float(g._data)
    try:
        r = fn(gf, x) if more is None else fn(gf, x, *more)
    except ArithmeticError:
        return None
    return r if type(r) is float else None


def _fit(node, i, gi, shape, dt):
    """Gradient gi for input i of the given shape and dtype, conformed to them (_conform); a
    float gradient stays one for a 0-d float64 input (the callers call this only where
    something may have to be done)."""
    if type(gi) is float:
        if dt is _F64 and not shape:
            return gi
        gi = _tensor_gradient(gi)
    d = gi._data
    if d.shape != shape or (d.dtype is not dt and d.dtype != dt):
        gi = _conform(node, i, gi, shape, dt)
    return gi


def _conform(node, i, gi, shape, dt):
    """Gradient gi for input i reduced to its shape and cast to its dtype (PyTorch's
    validate_outputs)."""
    if gi._data.shape != shape:
        gi = _reduce_to(node, i, gi, shape)
    d = gi._data.dtype
    if d is not dt and d != dt:
        gi = gi.to(dtypes.from_numpy_dtype(dt))
    return gi


def _specialised_vjp(op):
    """(apply, apply_f) for the node class of a one- or two-input op.  apply(node, grads):
    the node's gradients for its inputs, as Node.apply; apply_f(node, g): the same for the
    engine loop (graph._run), which passes a float gradient as it is and takes one back where
    the formula ran on Python floats (a gradient of a scalar graph then stays a float from
    node to node, without a tensor per node)."""
    if op.n_inputs == 1:
        call = _vjp_caller(op.vjps[0])

        def apply_f(self, g):
            if self._sst is RELEASED:
                raise RuntimeError(messages.BACKWARD_TWICE)
            if self._next_fns[0] is None or call is None:
                return [None]
            gi = call(self, g)
            if gi is None:
                return [None]
            meta = self._meta
            if (meta[0] or meta[1] is not _F64 if type(gi) is float else
                    gi._data.shape != meta[0] or gi._data.dtype is not meta[1]):
                gi = _fit(self, 0, gi, meta[0], meta[1])
            return [gi]
    else:
        vjps = op.vjps + (None,) * (2 - len(op.vjps))
        call_a, call_b = _vjp_caller(vjps[0]), _vjp_caller(vjps[1])

        def apply_f(self, g):
            if self._sst is RELEASED:
                raise RuntimeError(messages.BACKWARD_TWICE)
            fa, fb = self._next_fns
            meta = self._meta
            ga = gb = None
            if fa is not None and call_a is not None:
                ga = call_a(self, g)
                if ga is not None and (meta[0] or meta[1] is not _F64 if type(ga) is float else
                                       ga._data.shape != meta[0] or ga._data.dtype is not meta[1]):
                    ga = _fit(self, 0, ga, meta[0], meta[1])
            if fb is not None and call_b is not None:
                gb = call_b(self, g)
                if gb is not None and (meta[2] or meta[3] is not _F64 if type(gb) is float else
                                       gb._data.shape != meta[2] or gb._data.dtype is not meta[3]):
                    gb = _fit(self, 1, gb, meta[2], meta[3])
            return [ga, gb]

        if op.formula_order == (1, 0):
            in_order = apply_f

            def apply_f(self, g):  # (the same, the second input's formula first)
                if not GradMode.enabled:  # (see OpNode.apply)
                    return in_order(self, g)
                if self._sst is RELEASED:
                    raise RuntimeError(messages.BACKWARD_TWICE)
                fa, fb = self._next_fns
                meta = self._meta
                ga = gb = None
                if fb is not None and call_b is not None:
                    gb = call_b(self, g)
                    if gb is not None and (
                            meta[2] or meta[3] is not _F64 if type(gb) is float else
                            gb._data.shape != meta[2] or gb._data.dtype is not meta[3]):
                        gb = _fit(self, 1, gb, meta[2], meta[3])
                if fa is not None and call_a is not None:
                    ga = call_a(self, g)
                    if ga is not None and (
                            meta[0] or meta[1] is not _F64 if type(ga) is float else
                            ga._data.shape != meta[0] or ga._data.dtype is not meta[1]):
                        ga = _fit(self, 0, ga, meta[0], meta[1])
                return [ga, gb]

    if op.check_result:
        unchecked = apply_f

        def apply_f(self, g):
            saved = self._saved_out
            if saved is not None and type(saved[0]) is not PackedTensor and saved[2][0] != saved[3]:
                self._unpack_result()  # (raises PyTorch's error)
            return unchecked(self, g)

    def apply(self, grads):
        out = apply_f(self, grads[0])
        for i, gi in enumerate(out):
            if type(gi) is float:
                out[i] = _tensor_gradient(gi)
        return out
    return apply, apply_f


_NRS0 = (0,)
# dtype -> the `_meta` tuples of nodes of 0-d inputs, shared by all of them: indexed by which of
# two operands is a tensor (bit 0: the first, bit 1: the second), 4 for a one-input op.  In a
# graph of scalars, a tuple of its own per node would be one more object per node for the
# cyclic garbage collector to count and visit.
_SCALAR_META = {}


def _scalar_meta(npd, kind):
    _SCALAR_META[npd] = (None, ((), npd, None, None), (None, None, (), npd), ((), npd, (), npd),
                         ((), npd))
    return _SCALAR_META[npd][kind]
_NRS00 = (0, 0)
_Tensor = Tensor
_new_tensor = Tensor.__new__
_INFERENCE = InferenceMode  # (its counter: None, or inference tensors' in inference mode)
_array = np.array
_new_node = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray
_BOOL = np.dtype(np.bool_)
_LONG = np.dtype(np.int64)
_F64 = np.dtype(np.float64)
_F32 = np.dtype(np.float32)


def _mark_view(result, base):
    if isinstance(base, Tensor):
        vc = result._counter = base._counter
        result._base = base._base if base._base is not None else base
        if base._multi_output_view:
            result._multi_output_view = True
        if not GradMode.enabled:
            # PyTorch: a view made in no_grad mode still requires grad when its base does (a
            # leaf of its own for gradients) and may not be written in place with grad mode on
            if not (base.requires_grad_flag and result._data.dtype.kind in "fc"):
                return
            result.requires_grad_flag = True
            result._no_grad_view = True
        elif base._no_grad_view:  # (so is a view of such a view, made in any mode)
            result._no_grad_view = True
        # its history is regenerated (or, made in no_grad mode, made stale) when the base is
        # written through another alias (gradcli.ops.views.regenerate)
        if len(vc) == 1:
            vc.append(_WeakSet())
        vc[1].add(result)


def _bad_argument(op, x, position):
    return (f"{op.name}(): argument '{(op.inputs + ('other',))[min(position, len(op.inputs))].lstrip('*')}' "
            f"(position {position + 1}) must be Tensor, not {type(x).__name__}")


_INTERNAL_SAVED = frozenset(("_saved_in", "_saved_out", "_saved_ver",   # (not in dir())
                             "_savedvalue", "_savedvalue_input"))


def saved_value_properties(op):
    """The `_saved_<name>` (and, for tensors, `_raw_saved_<name>`) properties of op's node
    class: one per parameter its formulas read, named as PyTorch's nodes name them."""
    names = [n.lstrip("*") for n in op.inputs]
    props = {}
    for entry in op.vjps:
        for kind, idx in (entry[1] if entry is not None else ()):
            name = ("_saved_" + names[idx] if kind == INPUT else
                    ("_saved_result" if op.n_outputs == 1 else "_saved_result0")
                    if kind == RESULT else "_saved_" + op.attr_names[idx] if kind == ATTR
                    else "_saved_" + names[idx] + "_sym_sizes" if kind == SHAPE else None)
            if name is None or name in props or name[7:] in op.hidden_saved:
                continue
            props[name] = property(lambda node, n=name, k=kind, i=idx: node._savedvalue(n, k, i))
            if kind in (INPUT, RESULT):
                props["_raw" + name] = property(
                    lambda node, k=kind, i=idx: RawSavedTensor(node, k, i))
    for name, fn in op.extra_saved.items():
        props[name] = property(fn)
    props["_exposed_saved"] = frozenset(props)
    return props


class RawSavedTensor(metaclass=TorchClass):
    """`grad_fn._raw_saved_<name>`: one tensor a node saved, to give hooks of its own
    (register_hooks(pack_hook, unpack_hook): pack_hook runs at once, unpack_hook whenever the
    saved tensor is read)."""

    _torch_name = "torch._C._autograd.SavedTensor"
    __slots__ = ("_node", "_kind", "_index")

    def __init__(self, node, kind, index):
        self._node, self._kind, self._index = node, kind, index

    __repr__ = torch_repr

    def _kept(self):
        """What the node keeps for this saved tensor: the tensor (or number), the saved output's
        array, a PackedTensor once hooks packed it, None where it saved nothing, RELEASED after
        a backward pass freed it."""
        node = self._node
        saved = node._saved_in
        if saved is RELEASED:
            return RELEASED
        if self._kind == RESULT:
            out = node._saved_out
            return None if out is None else out[0]
        return None if saved is None else saved[self._index]

    @property
    def data(self):
        """The saved tensor as the node keeps it, without unpacking: what pack_hook returned
        once hooks packed it; a saved output's data without autograd history; None where
        nothing was saved or after a backward pass freed it (PyTorch's SavedTensor.data)."""
        value = self._kept()
        if value is RELEASED or value is None:
            return None
        if type(value) is PackedTensor:
            return value.value
        if self._kind == RESULT:
            return Tensor._make(value, None, 0, False)
        if self._node.op.variadic:  # (einsum's operands: all of them, as _saved_operands)
            return list(self._node._saved_in)
        if isinstance(value, Tensor):
            return value
        return self._node._savedvalue_input(self._index)  # a number: as _saved_<name> shows it

    @property
    def unpack_hook(self):
        """The unpack hook of the hooks that packed this saved tensor, or None."""
        value = self._kept()
        return value.unpack_hook if type(value) is PackedTensor else None

    def unpack(self):
        """The saved tensor, unpacked as the backward pass unpacks it (version check, unpack
        hook).  PyTorch cannot unpack a saved output without its node here, and says so with
        the error of a tensor detached in place; a freed one is the error of a second
        backward pass."""
        if self._kind != RESULT:
            return self._node._savedvalue_input(self._index)
        value = self._kept()
        if value is RELEASED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        if value is not None:
            raise RuntimeError(messages.RAW_SAVED_OUTPUT_UNPACK)
        return None

    def register_hooks(self, *hooks):
        if len(hooks) != 2 or not all(callable(h) for h in hooks):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported:\n    1. (self: torch._C._autograd.SavedTensor, arg0: "
                "collections.abc.Callable, arg1: collections.abc.Callable) -> None\n\n"
                f"Invoked with: {', '.join(map(repr, (self,) + hooks))}")
        node = self._node
        value = self._kept()
        if value is RELEASED:
            raise RuntimeError(messages.RAW_SAVED_FREED)
        if type(value) is PackedTensor:
            raise RuntimeError(messages.RAW_SAVED_HOOKS_TWICE)
        if value is None:
            raise RuntimeError(messages.RAW_SAVED_NONE)
        # pack_hook gets the saved tensor's data (no autograd history), as PyTorch's does
        if self._kind == RESULT:
            packed = PackedTensor(node._unpack_result().detach(), output=True, hooks=hooks)
        else:
            tensor = node._savedvalue_input(self._index)  # (a number: its wrapped tensor)
            packed = PackedTensor(tensor.detach(), hooks=hooks, place=tensor)
        _put_packed(node, self._kind, self._index, packed)


# ops whose `dim` is a list in PyTorch's schema (int[1]? dim): `_saved_dim` shows a tuple
_DIM_LISTS = frozenset(("sum.dim_IntList", "mean.dim", "amax", "amin", "var", "std", "logsumexp",
                        "linalg_vector_norm", "std_mean", "var_mean", "nansum", "nanmean",
                        "count_nonzero"))


class OpNode(Node):
    """The grad_fn of an op's outputs; one subclass per op, named like PyTorch's.

    `_saved_in` holds the saved inputs aligned with the op's inputs (None where nothing is
    saved; RELEASED after a backward pass), `_saved_ver` their versions when one was not 0,
    `_saved_out` the saved output as (array, output_nr, version counter, version), `_meta` the
    shape and dtype of each input, flat.  (The nodes of one- and two-input ops keep their edges
    and saved inputs in slots: _PairNode.)"""

    __slots__ = ("_attrs", "_meta", "_saved_in", "_saved_out")
    num_outputs = 1
    _saved_ver = None
    # an op in place on a view that saved its output (exp_): a weak reference to the view,
    # whose history the saved output takes when unpacked (PyTorch's is_inplace_on_view
    # SavedVariable: the view's grad_fn, AsStridedBackward0 after the write, not this node)
    _result_view = None

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
            if self.op.variadic:
                out[names[0]] = self._unpack_all()
            else:
                for i, name in enumerate(names):
                    if self._saved_in[i] is not None:
                        out[name] = self._unpack(i)
        if self._saved_out is not None:
            out["result"] = self._unpack_result()
        return out

    # `grad_fn._saved_<name>` and `_raw_saved_<name>` are properties of each op's node class
    # (saved_value_properties), not a __getattr__: a class with __getattr__ makes CPython look
    # up every attribute of its instances the slow way, and nodes are read on every op
    _exposed_saved = frozenset()

    def _savedvalue(self, name, kind, idx):
        """PyTorch's `grad_fn._saved_<name>`: what the op's formulas read, by their parameter
        names: a saved input (`_saved_self`, `_saved_other`: the tensor itself, a Python
        number as PyTorch's wrapped 0-d tensor, None where this node did not need to save
        it), the saved output (`_saved_result`), an attribute (`_saved_dim`,
        `_saved_exponent`), an input's shape (`_saved_self_sym_sizes`).  Saved tensors are
        gone after a backward pass without retain_graph; attributes and shapes stay."""
        if kind == INPUT:
            return self._savedvalue_input(idx)
        if kind == RESULT:
            if self._saved_in is RELEASED:
                raise RuntimeError(messages.BACKWARD_TWICE)
            return None if self._saved_out is None else self._unpack_result()
        if kind == ATTR:
            value = self._attrs[idx]
            if name == "_saved_dim" and self.op.name in _DIM_LISTS and isinstance(value, int):
                value = (value,)
            if self.op.shown_saved is not None:
                value = self.op.shown_saved(name, self._attrs, value)
            return value
        return self._meta[2 * idx]  # SHAPE

    def saved_attribute(self, name):
        """node.<name> for a `_saved_*` or `_raw_saved_*` name this node has (the sandbox's
        way to it), else PyTorch's AttributeError."""
        if name not in self._exposed_saved:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) - _INTERNAL_SAVED)

    def _savedvalue_input(self, i):
        saved = self._saved_in
        if saved is RELEASED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        if saved is None:
            return None
        if self.op.variadic:
            return self._unpack_all()
        x = saved[i]
        if x is None:
            return None
        if isinstance(x, Tensor) or type(x) is PackedTensor:
            return self._unpack(i)
        if "Scalar" in self.op.name:  # a Scalar argument of PyTorch's (pow.Tensor_Scalar)
            return x
        # a number for a Tensor argument: the 0-d tensor PyTorch wraps it in (int64, float64)
        return Tensor._make(np.asarray(x), None, 0, False)

    def _unpack(self, i):
        """Saved input i, checked against in-place changes since it was saved."""
        x = self._saved_in[i]
        if type(x) is PackedTensor:  # (saved_tensors_hooks: no version check, as PyTorch's)
            return x.unpack()
        if type(x) is _Tensor or isinstance(x, Tensor):
            vc = x._vc
            if vc is not None:
                saved = 0 if self._saved_ver is None else self._saved_ver[i]
                if vc[0] != saved:
                    raise version_error(x.dtype.tensor_type, x._data.shape, x.grad_fn,
                                        x._output_nr, vc[0], saved)
        return x

    def _unpack_all(self):
        return [self._unpack(i) for i in range(len(self._saved_in))]

    def _unpack_result(self):
        """The saved output, as a tensor whose grad_fn is this node (made anew: the node does not
        keep its own output alive, which would be a reference cycle)."""
        data, nr, vc, saved, *tangent = self._saved_out
        if type(data) is PackedTensor:
            return data.unpack(self)
        if vc[0] != saved:
            raise version_error(dtypes.from_numpy_dtype(data.dtype).tensor_type, data.shape,
                                self, nr, vc[0], saved)
        t = _new_tensor(_Tensor)
        t._data = data
        t.grad_fn = self
        t._output_nr = nr
        if self._result_view is not None:
            view = self._result_view()
            if view is not None and view.grad_fn is not None:
                t.grad_fn, t._output_nr = view.grad_fn, view._output_nr
        t.requires_grad_flag = True
        t._vc = vc
        if tangent and ForwardAD.level is not None:  # forward-over-reverse: a dual output
            _set_tangent(t, tangent[0])
        return t

    def _resolve(self, kinds, g):
        args = []
        for kind, idx in kinds:
            if kind == G:
                args.append(g)
            elif kind == INPUT:
                args.append(self._unpack_all() if self.op.variadic else self._unpack(idx))
            elif kind == RESULT:
                args.append(self._unpack_result())
            elif kind == ATTR:
                args.append(self._attrs[idx])
            elif kind == SHAPE:
                args.append(self._meta[2 * idx])
            elif kind == DTYPE:
                args.append(dtypes.from_numpy_dtype(self._meta[2 * idx + 1]))
            else:
                args.append(list(self._meta[0::2]))
        return args

    def apply(self, grads):
        op = self.op
        if self._saved_in is RELEASED:
            raise RuntimeError(messages.BACKWARD_TWICE)
        if op.n_outputs == 1:
            g = grads[0]
        else:
            g = list(grads) if op.undefined_grads else [
                gr if gr is not None else _zeros_for(self, nr) for nr, gr in enumerate(grads)]
        fns = self._next_fns if op.edge_index is None else self._input_fns
        if op.per_input:
            saved = self._saved_out
            if (op.check_result and saved is not None and type(saved[0]) is not PackedTensor
                    and saved[2][0] != saved[3]):
                self._unpack_result()  # (raises PyTorch's error: see Op.check_result)
            vjps = op.vjps
            n = min(len(fns), len(vjps))
            out = [None] * n
            # PyTorch's order, its derivatives' names sorted, when the formulas make nodes (a
            # create_graph backward: the order of their sequence numbers); else the inputs'
            # order, in which PyTorch unpacks what the node saved (saved_tensors_hooks' unpack
            # hooks, the first version-counter error)
            for i in op.formula_order if GradMode.enabled else range(n):
                entry = vjps[i] if i < n else None
                if entry is not None and fns[i] is not None:
                    fn, kinds = entry
                    out[i] = fn(*self._resolve(kinds, g))
        else:
            fn, kinds = op.vjps[0]
            out = fn(*self._resolve(kinds, g))
            if not op.variadic and len(fns) == 1:
                out = [out]
            else:
                out = list(out)
        meta = self._meta
        for i, gi in enumerate(out):
            if gi is None:
                continue
            if fns[i] is None:
                out[i] = None
                continue
            d = gi._data
            shape = meta[2 * i]
            if d.shape != shape:
                gi = _reduce_to(self, i, gi, shape)
                d = gi._data
            dt = meta[2 * i + 1]
            if d.dtype is not dt and d.dtype != dt:
                gi = gi.to(dtypes.from_numpy_dtype(dt))
            out[i] = gi
        if op.edge_index is not None:
            return [out[i] for i in op.edge_index]
        return out



class _PairNode(OpNode):
    """The node of a one- or two-input op with one output (most nodes), made so that a node
    of a long graph is one object for Python's cyclic garbage collector instead of three: each
    full collection walks every tracked object, and along a 100,000-op chain the tuples of
    child nodes and of saved inputs were two thirds of them.  The fast path of the forward
    pass (`_specialised_apply`) leaves `_next_fns` None and keeps the child nodes in `_fa`,
    `_fb` (`_fb` is `_UNARY` for a one-input op); the backward pass's first walk
    (graph._collect), or `next_functions`, makes the tuple when it is needed (the collector
    is paused during a pass).  Saved inputs live in `_s0`, `_s1`, read only when `_sst` is 1
    (None: nothing saved; RELEASED: freed by a backward pass); `_saved_in` gives and takes
    the tuple the generic code uses."""

    __slots__ = ("_fa", "_fb", "_s0", "_s1", "_sst")

    def _get_saved(self):
        st = self._sst
        if st is None or st is RELEASED:
            return st
        return (self._s0,) if self._one_input else (self._s0, self._s1)

    def _set_saved(self, saved):
        if saved is None or saved is RELEASED:
            self._sst = saved
            self._s0 = self._s1 = None
        else:
            self._sst = 1
            self._s0 = saved[0]
            self._s1 = saved[1] if len(saved) > 1 else None

    _saved_in = property(_get_saved, _set_saved)

    def _build_edges(self):
        fb = self._fb
        return (self._fa,) if fb is _UNARY else (self._fa, fb)

    def release(self):
        if self._sst is not None or self._saved_out is not None:
            self._sst = RELEASED
            self._s0 = self._s1 = self._saved_out = None

    def refers_to(self, array):
        """Whether the node's formulas may have been given `array` (Node.refers_to): a saved
        input's or output's array or its base, an attribute; yes for values packed by saved
        tensors hooks (their unpack hook may give anything), and once released."""
        st = self._sst
        if st is RELEASED:
            return True
        if st == 1:
            if _holds(self._s0, array) or (not self._one_input and _holds(self._s1, array)):
                return True
        out = self._saved_out
        if out is not None and _holds(out[0], array):
            return True
        return _holds(self._attrs, array)


def _holds(value, array):
    """Whether a saved value or attribute is, or may give, `array`: a tensor or array when it
    or its base is `array`, a tuple or list when an item does, anything but a number, a
    string or a dtype may."""
    tv = type(value)
    if tv is float or tv is int or tv is bool or tv is str or value is None:
        return False
    if tv is _ndarray or isinstance(value, Tensor):
        d = value if tv is _ndarray else value._data
        return d is array or d.base is array
    if tv is tuple or tv is list:
        return any(_holds(v, array) for v in value)
    return not isinstance(value, (numbers.Number, np.dtype, dtypes.dtype))


class _UnaryNode(_PairNode):
    """The node of a one-input op (sin, exp, sum, ...)."""

    __slots__ = ()
    _one_input = True


class _BinaryNode(_PairNode):
    """The node of a two-input op (add, mul, matmul, ...)."""

    __slots__ = ()
    _one_input = False


def _zeros_for(node, nr):
    """A zero gradient for an output that received none (multi-output ops)."""
    shape, npd = node._out_meta[nr]
    return Tensor._make(np.zeros(shape, npd), None, 0, False)


def _reduce_to(node, i, g, shape):
    """g summed to shape, or PyTorch's error when g's shape is not shape broadcast (the
    engine's validate_outputs; custom Functions' gradients go through it too)."""
    try:
        ok = np.broadcast_shapes(g._data.shape, shape) == g._data.shape
    except ValueError:
        ok = False
    if not ok:
        raise RuntimeError(messages.INVALID_GRADIENT_SHAPE.format(
            node=node.name(), index=i, got=list(g._data.shape), expected=list(shape)))
    return g.sum_to_size(shape)


def _forward_ad(op, inputs, attrs, results):
    """Propagate tangents (forward-mode AD) through op."""
    if not op.differentiable:  # (x == 0 and the like: no tangent, as in PyTorch)
        return
    tangents = [x._fw if isinstance(x, Tensor) else None for x in inputs]
    if ForwardAD.batch is not None:
        _set_tangent(results[0], _batched_tangent(op, inputs, attrs, results, tangents))
        _save_output_tangent(results[0])
        return
    out = _tangent_out(op, inputs, attrs, results, tangents)
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
    _save_output_tangent(results[0])


def _save_output_tangent(r):
    """A node that saved its output keeps the output's tangent with it, as PyTorch's saved
    variables keep their forward gradient: its backward, run inside the dual level
    (forward-over-reverse), then sees a dual tensor."""
    node = r.grad_fn
    saved = getattr(node, "_saved_out", None) if node is not None else None
    if saved is not None and len(saved) == 4 and r._fw is not None:
        node._saved_out = saved + (r._fw,)


def _batched_tangent(op, inputs, attrs, results, tangents):
    """The output tangent of a one-output op when every tangent has a leading batch dimension:
    elementwise ops of equal shapes apply their formula to the whole batch (it broadcasts),
    matrix products use a batched product, anything else runs its JVP one slice at a time.
    All of it in Tensor ops: a tangent that depends on inputs requiring grad is differentiable,
    as PyTorch's vmap-ed jvp is (forward-over-reverse Hessians have a grad_fn there)."""
    batch = ForwardAD.batch
    if op.n_outputs != 1:
        raise Unbatchable(op.name)
    for x, t in zip(inputs, tangents):
        if t is not None and t._data.shape != (batch,) + x._data.shape:
            raise Unbatchable(op.name)
    r = results[0]
    shape = (batch,) + r._data.shape
    out = None
    if (op.kind in ("elementwise", "binary", "backward") and op.elementwise_jvp
            and not op.variadic and all(x._data.shape == r._data.shape for x in inputs
                                        if isinstance(x, Tensor))):
        out = _tangent_out(op, inputs, attrs, results, tangents)
    elif op.name in ("mm", "mv"):
        out = _batched_product(inputs, tangents)
    elif op.name in _BATCH_RULES and tangents[0] is not None:
        out = _BATCH_RULES[op.name](tangents, attrs, r._data.shape)
    if out is None or out._data.shape != shape:
        from . import stack
        slices = []
        for k in range(batch):
            o = _tangent_out(op, inputs, attrs, results,
                             [None if t is None else t[k] for t in tangents])
            slices.append(o.expand(r._data.shape) if o._data.shape != r._data.shape else o)
        out = stack(slices)
    if out._data.dtype != r._data.dtype:
        out = out.to(r.dtype)
    return out


def _batched_reshape(tangents, attrs, shape):
    return tangents[0].reshape((tangents[0].shape[0],) + shape)


def _batched_select(tangents, attrs, shape):
    dim, index = attrs
    return tangents[0].select(dim if dim < 0 else dim + 1, index)


def _batched_sum(tangents, attrs, shape):
    t = tangents[0]
    return t.sum(dim=tuple(range(1, t.dim()))) if attrs == (None,) and t.dim() > 1 else None


def _batched_stack(tangents, attrs, shape):
    from . import stack
    (dim,) = attrs
    if any(t is None for t in tangents):
        return None
    return stack(tangents, dim if dim < 0 else dim + 1)


# Linear ops whose batched tangent is the op on the batch with its dimensions shifted by one
# (f(tangents, attrs, one slice's result shape) -> batched tangent, or None: slice by slice).
# The reshapes keep the order of the elements, so one reshape with the batch in front serves.
_BATCH_RULES = dict.fromkeys(
    ("view", "reshape", "_reshape_alias", "_unsafe_view", "squeeze.all", "squeeze.dim",
     "squeeze.dims", "unsqueeze", "flatten", "unflatten", "view_as", "reshape_as", "alias",
     "clone", "contiguous"), _batched_reshape)
_BATCH_RULES.update({"select": _batched_select, "sum.default": _batched_sum,
                     "stack": _batched_stack})


def _batched_product(inputs, tangents):
    """mm/mv's JVP (t @ other + self @ t) for batched tangents: matmul broadcasts the batch
    dimension."""
    from . import matmul
    a, b = _primal(inputs[0]), _primal(inputs[1])
    out = None
    if tangents[0] is not None:
        out = matmul(tangents[0], b)
    if tangents[1] is not None:
        t = tangents[1]
        term = matmul(t, a.mT) if b.dim() == 1 else matmul(a, t)
        out = term if out is None else out + term
    return out


def _tangent_out(op, inputs, attrs, results, tangents):
    """The JVP of op: the output tangent (a list for several outputs)."""
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
        # one formula per input, summed; or one formula given every tangent (a list with None
        # for an input that has none, when the op has several inputs)
        if (op.jvp == "elementwise" and op.per_input
                or op.jvp != "elementwise" and len(entries) == len(inputs)):
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
    return out


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
        p._counter = x._counter
        return p
    return x


def passthrough(g):
    """The derivative formula `grad` itself (d/dself of self + other, of clone, …)."""
    return g


def _passed_through(node, g):
    return g


def zeros_like_grad(g):
    """PyTorch's `zeros_like(grad)` in a derivative formula: zeros without a graph (g * 0 would
    be -0. where g is negative and nan where it is infinite)."""
    return Tensor._make(np.zeros_like(g._data), None, 0, False)


derivatives.helper(zeros_like_grad, name="zeros_like")


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
    nodes, and its derivative is theirs (PyTorch's CompositeImplicit ops).  `via`: the ops it
    runs, whose derivative formulas are the ones shown for it."""

    def __init__(self, name, compose, via=(), **kw):
        super().__init__(name, None, COMPOSITION, **kw)
        self.compose = compose
        self.via = tuple(via)

    def apply(self, inputs, attrs):
        if self.variadic:
            return self.compose(list(inputs), *attrs)
        return self.compose(*inputs, *attrs)


class Plain:
    """A table entry that is a plain function (creation ops: nothing to differentiate; or a
    function that calls the ops named in `via`, whose nodes and formulas it has)."""

    method = inplace = False
    function = public = True

    def __init__(self, name, fn, doc, kind="creation", signature=None, via=()):
        self.name, self.fn, self.doc, self.kind, self.signature = name, fn, doc, kind, signature
        self.via = via
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
        self._formula = formula
        self.public = True

    @property
    def formula(self):
        """The derivative formulas of the ops it picks from (or the text it was given)."""
        if self._formula:
            return self._formula
        return "; ".join(dict.fromkeys(part for o in self.ops for part in o.formula.split("; ")
                                       if part))

    def __call__(self, *args, **kwargs):
        return self.choose(*args, **kwargs)(*args, **kwargs)


def as_tensor_arg(x, like=None):
    """Python data handed where a tensor is required (indices, masks) as a Tensor."""
    if isinstance(x, Tensor):
        return x
    return Tensor._make(to_array(x), None, 0, False)


@derivatives.helper
def wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"dim must be int, not {type(dim).__name__}")
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return int(dim) % n

