"""The op table machinery: one `Op` declaration per operation, and the dispatcher that runs its
forward on NumPy arrays and records its backward node.

An op declares its forward (a NumPy function), its derivative formulas as derivatives.yaml
writes them (`"self: grad * self.cos()"`, one per differentiable input, written in Tensor
operations so that create_graph differentiates them again; gradcli.ops.derivatives compiles
them), its JVP, its grad_fn name, method and operator names, a doc line, and sample domains for
tests.  What a node saves for backward is derived from the names the formulas read: a formula
that reads `self` saves the input `self`, one that reads `result` saves the output.  So an op
saves exactly what its formulas need, only for inputs that need a gradient, like PyTorch.

Here: Op (its declaration, the general forward path, recording its node), Composed, Plain and
Overload.  Beside it: gradcli.ops.entries (the table, its entries and the Pending ones),
gradcli.ops.arguments (binding a call's arguments, the argument parser's errors),
gradcli.ops.nodes (the backward node and what it saves),
gradcli.ops.forward_mode (tangents) and gradcli.ops.dispatch (the specialised paths of one- and
two-input ops, float VJPs).
"""

import numbers

import numpy as np

from ..engine import dtypes, messages
from ..engine.grad_mode import GradMode
from ..engine.graph import _ZERO_NRS, AnomalyMode, NodeRecorder, _sequence
from ..engine.saved import SavedHooks
from ..engine.tangents import ForwardAD
from ..engine.random import Vmap
from ..engine.tensor import Tensor, mark_batched, to_array
from . import derivatives
from .nodes import (ATTR, DTYPE, G, INPUT, OpNode, RESULT, SHAPE, SHAPES, _AS_IS, _BOOL,
                    _BinaryNode, _FIXED, _LONG, _PROMOTE, _UnaryNode, _new_node, _pack_saved,
                    saved_value_properties)
from .forward_mode import _forward_ad
from . import unsigned
from .dispatch import _mark_view, _specialised_apply, _specialised_vjp
from .arguments import (_MISSING, _bad_argument, _check_number_attr, missing_arguments,
                        numpy_named_attr, numpy_named_input, numpy_named_retry)
from .entries import ALIASES, CLASSES, OPS, Entry, _note_class


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


class Op(Entry):
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
    random = False  # draws from the default generator (the table's tests seed it before a call)

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
        # a "*" among the attributes: those after it are keyword-only (native_functions.yaml's
        # `*, Generator? generator=None`)
        attrs = tuple(attrs)
        self.positional_attrs = attrs.index("*") if "*" in attrs else len(attrs)
        attrs = tuple(a for a in attrs if a != "*")
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
            # (popped once made: a text whose making an error stops is made at the next read)
            self.formula = derivatives.text(self.__dict__["_text_from"], self.name)
            del self.__dict__["_text_from"]
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
        try:
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
            # per input that some VJP reads: (input index, indices of the VJPs that read it, or
            # None when one VJP serves all inputs and the input is always saved)
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
                if self.n_inputs == 2:  # the Python operator: the same, NotImplemented for
                    # operands it cannot take (Python then says `unsupported operand`)
                    self.operator_call = self.operator_variant()
            if pair and self.vjps and (self.per_input or self.n_inputs == 1):
                apply, apply_f = _specialised_vjp(self)
                self.node_cls.apply, self.node_cls.apply_f = apply, staticmethod(apply_f)
        except BaseException:  # (stopped: a RecursionError, the timeout; made at the next use)
            self.__dict__["_declared"] = declared
            raise
        return self

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

    def signature_text(self, name=None, method=False):
        """The call as `gradcli ops` shows it, from the declaration: `uniform(self, from=0.0,
        to=1.0, *, generator=None)` (method=True: without self, as Tensor's method takes it)."""
        args = [n for n in self.inputs if not (method and n == "self")]
        for i, (attr, default) in enumerate(zip(self.attr_names, self.attr_defaults)):
            if i == self.positional_attrs:
                args.append("*")
            args.append(attr if default is _MISSING else f"{attr}={default!r}")
        return f"{name or self.name}({', '.join(args)})"

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
                raise missing_arguments(self.name, [self.inputs[0][1:]])
            if isinstance(seq, Tensor) or not isinstance(seq, (list, tuple)):
                raise TypeError(f"{self.name}(): argument '{self.inputs[0][1:]}' (position 1) must "
                                f"be tuple of Tensors, not {messages.type_name(seq)}")
            inputs = tuple(seq)
        else:
            inputs = list(args[:n])
            rest = args[n:]
            for name in self.inputs[len(inputs):]:
                value = kwargs.pop(name, _MISSING)
                if value is _MISSING and name == "self":
                    value = kwargs.pop("input", _MISSING)
                if value is _MISSING:
                    value = numpy_named_input(name, kwargs)
                if value is _MISSING:
                    raise missing_arguments(self.name, self._missing(len(inputs), kwargs))
                inputs.append(value)
        if len(rest) > self.positional_attrs:
            raise TypeError(self._too_many(n + len(rest)))
        attrs = list(rest) + list(self.attr_defaults[len(rest):])
        for key, value in kwargs.items():
            try:
                i = self.attr_names.index(key)
            except ValueError:
                i = numpy_named_attr(self, key, kwargs)  # (`axis`, `keepdims`) or TypeError
            if i < len(rest):
                raise TypeError(f"{self.name}() got multiple values for argument '{key}'")
            attrs[i] = value
        missing = [name for name, value in zip(self.attr_names, attrs) if value is _MISSING]
        if missing:
            raise missing_arguments(self.name, missing)
        for i, (name, value) in enumerate(zip(self.attr_names, attrs)):
            if isinstance(value, (Tensor, np.ndarray)):
                _check_number_attr(self, i, value)
        return inputs, tuple(attrs)

    def _missing(self, given, kwargs):
        """The required arguments not given (inputs from the `given`-th on, then attributes),
        as PyTorch's parser names them (`self` is `input`)."""
        inputs = ["input" if n == "self" else n for n in self.inputs[given:]]
        attrs = [n for n, d in zip(self.attr_names, self.attr_defaults) if d is _MISSING]
        return [n for n in inputs + attrs if n not in kwargs]

    def takes(self, args, kwargs, method=False):
        """Whether these arguments fit the declaration by count and names (method: self not
        among args), types aside: what PyTorch's parser tries first for each overload."""
        names = [n for n in self.inputs if not (method and n == "self")] + list(self.attr_names)
        positional = len(names) - len(self.attr_names) + self.positional_attrs
        given = set(names[:len(args)])
        required = {n for n, d in zip(self.attr_names, self.attr_defaults) if d is _MISSING}
        required |= set(names[:len(names) - len(self.attr_names)])
        return (len(args) <= positional and all(k in names and k not in given for k in kwargs)
                and required <= given | set(kwargs))

    def _too_many(self, given):
        """PyTorch's TypeError for more positional arguments than the op takes."""
        low = self.n_inputs + sum(d is _MISSING for d in self.attr_defaults)
        high = self.n_inputs + self.positional_attrs
        if low != high:
            return (f"{self.name}() takes from {low} to {high} positional arguments but {given} "
                    f"were given")
        return (f"{self.name}() takes {high} positional argument{'' if high == 1 else 's'} but "
                f"{given} {'was' if given == 1 else 'were'} given")

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
        backward node and propagate tangents when needed.  (One- and two-input ops get a
        specialised apply at first use: see prepare.)"""
        datas = []
        need_grad = False
        dual = False
        in_dtype = None      # the common NumPy dtype of the tensor inputs, if they share one
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
                if in_dtype is None:
                    in_dtype = d.dtype
                elif d.dtype != in_dtype:
                    mixed = True
            elif isinstance(x, (float, int)) and not isinstance(x, bool):
                datas.append(x)
                if type(x) is not float and type(x) is not int:
                    datas[-1] = x = x.item() if isinstance(x, np.generic) else x
                if in_dtype is not None and in_dtype.kind not in "fc":
                    mixed = True
            elif isinstance(x, numbers.Number):
                datas.append(x.item() if isinstance(x, np.generic) else x)
                mixed = True
            else:
                raise TypeError(_bad_argument(self, x, len(datas)))
        if not n_tensors:
            raise TypeError(_bad_argument(self, inputs[0] if inputs else None, 0))
        rule = self.dtype_rule
        out_dtype = None
        if rule == "promote" or rule == "float":
            if (mixed or in_dtype.kind not in "fc"
                    or (in_dtype.kind == "f" and in_dtype.itemsize < 4)):
                out_dtype = self.result_dtype([x for x in inputs if isinstance(x, Tensor)],
                                       [x for x in inputs if not isinstance(x, Tensor)]).np
                if out_dtype.kind == "u" and out_dtype.itemsize > 1:
                    unsigned.check(self, inputs, attrs, out_dtype)
                for i, d in enumerate(datas):
                    if type(d) is np.ndarray and d.dtype != out_dtype:
                        datas[i] = d.astype(out_dtype)
            else:
                out_dtype = in_dtype
        elif rule == "bool":
            out_dtype = _BOOL
        elif rule == "long":
            out_dtype = _LONG
        if self.variadic:
            out = self.forward(datas, *attrs)
        else:
            out = self.forward(*datas, *attrs)
        if in_dtype.kind == "u" and in_dtype.itemsize > 1:
            # (a kernel PyTorch has not: refused after the forward's checks, as PyTorch's
            # argument checks come before its dispatch on the dtype; the specialised paths of
            # one- and two-input ops leave unsigned inputs to this one)
            unsigned.check(self, inputs, attrs)
        return self._finish(inputs, attrs, out, out_dtype, need_grad, dual)

    _apply_general = apply  # (what the specialised apply of one- and two-input ops falls back to)

    def _finish(self, inputs, attrs, out, out_dtype, need_grad, dual):
        """Wrap forward's output(s), then record and propagate tangents."""
        if self.n_outputs == 1:
            if type(out) is not np.ndarray:
                out = np.asarray(out)
            if out_dtype is not None and out.dtype != out_dtype:
                out = out.astype(out_dtype)
            results = (Tensor._make(out, None, 0, False),)
        else:
            results = tuple(Tensor._make(np.asarray(o), None, 0, False) for o in out)
        if self.view:
            for r in results:
                _mark_view(r, inputs[0])
                if self.n_outputs != 1 and GradMode.enabled:
                    r._multi_output_view = True
        if Vmap.levels:  # (results of a tensor that depends on vmap's inputs do too)
            mark_batched(results, inputs)
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
            node._anomaly = AnomalyMode.where(3)

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


def show_saved_as(op, renames):
    """Show saved values under PyTorch's names where the formulas read them under others
    (`{"A": "self"}`: linalg_solve_triangular's input A is aten's self; `{"result":
    "inverse"}`)."""
    names = [n.lstrip("*") for n in op.inputs]
    op.hidden_saved = tuple(op.hidden_saved) + tuple(renames)
    shown = dict(op.extra_saved)
    for old, new in renames.items():
        kind, idx = (RESULT, 0) if old == "result" else (INPUT, names.index(old))
        shown["_saved_" + new] = (lambda node, name="_saved_" + old, k=kind, i=idx:
                                  node._savedvalue(name, k, i))
    op.extra_saved = shown


def register(op):
    """Add op to the table (public ops become functions and, if declared, methods)."""
    OPS[op.name] = op
    if type(op) not in CLASSES:
        _note_class(type(op))
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
        if unsigned.kernel_entry(name):
            self.apply = unsigned.refusing_composed(self)

    def apply(self, inputs, attrs):
        if self.variadic:
            return self.compose(list(inputs), *attrs)
        return self.compose(*inputs, *attrs)


class Plain(Entry):
    """A table entry that is a plain function (creation ops: nothing to differentiate; or a
    function that calls the ops named in `via`, whose nodes and formulas it has)."""

    method = inplace = False
    function = public = True

    def __init__(self, name, fn, doc, kind="creation", signature=None, via=()):
        if fn is not None and isinstance(unsigned.KERNELS.get(name), str):
            fn = unsigned.refusing_plain(name, fn)
        self.name, self.fn, self.doc, self.kind, self.signature = name, fn, doc, kind, signature
        self.via = via
        self.formula = ""
        self.__doc__ = doc

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


class Overload(Entry):
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
        try:
            return self.choose(*args, **kwargs)(*args, **kwargs)
        except TypeError as e:  # (`axis=`, `keepdims=`: NumPy's names PyTorch takes too)
            return numpy_named_retry(self, e, args, kwargs)


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
