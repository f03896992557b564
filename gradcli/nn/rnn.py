"""torch.nn's recurrent layers: RNN, LSTM and GRU (num_layers, bidirectional, batch_first,
bias, dropout between layers; LSTM's proj_size) and their cells RNNCell, LSTMCell and GRUCell, with PyTorch's
parameters (names, order, uniform(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) drawn as PyTorch
draws them), checks and printing.

The recurrences are PyTorch's CPU ones (aten/src/ATen/native/RNN.cpp, used when no fused
kernel is), written in the same differentiable ops, so that the graph shows PyTorch's nodes:
a layer projects the whole sequence at once (linear_ih), unbinds it into steps, runs the cell
step by step (linear_hh(h) + the step's projection; the gates from unsafe_chunk), stacks the
outputs; a bidirectional layer cats the forward and reversed directions' outputs; h_n (and
c_n) stack the layers' last hidden states."""

import inspect
import math

from ..engine.tensor import check_numel
from ..ops.registry import OPS
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


# ------------------------------------------------------------------ the cells (RNN.cpp)

_linear = F.linear  # (at::linear's branches: CellParams' linear_ih and linear_hh)


def _simple_cell(nonlinearity):
    """SimpleCell: nonlinearity(linear_hh(h) + linear_ih(x)) (x already projected when
    projected is True)."""
    def cell(x, h, params, projected):
        w_ih, w_hh, b_ih, b_hh = params[:4]
        gates = _linear(h, w_hh, b_hh) + (x if projected else _linear(x, w_ih, b_ih))
        return gates.tanh() if nonlinearity == "tanh" else gates.relu()
    return cell


def _lstm_cell(x, hidden, params, projected):
    """LSTMCell: the gates i, f, g, o from one product; c' = f * c + i * g, h' = o * tanh(c')
    (projected by W_hr when the layer has proj_size: h' @ W_hr^T)."""
    w_ih, w_hh, b_ih, b_hh = params[:4]
    h, c = hidden
    gates = _linear(h, w_hh, b_hh) + (x if projected else _linear(x, w_ih, b_ih))
    ingate, forgetgate, cellgate, outgate = OPS["unsafe_chunk"](gates, 4, 1)
    ingate, forgetgate = ingate.sigmoid(), forgetgate.sigmoid()
    cellgate, outgate = cellgate.tanh(), outgate.sigmoid()
    cy = forgetgate * c + ingate * cellgate
    hy = outgate * cy.tanh()
    if len(params) > 4 and params[4] is not None:
        hy = hy.matmul(params[4].t())
    return hy, cy


def _gru_cell(x, h, params, projected):
    """GRUCell: r and z from the sum of both products' chunks, n = tanh(x_n + h_n * r),
    h' = (h - n) * z + n."""
    w_ih, w_hh, b_ih, b_hh = params[:4]
    igates = OPS["unsafe_chunk"](x if projected else _linear(x, w_ih, b_ih), 3, 1)
    hgates = OPS["unsafe_chunk"](_linear(h, w_hh, b_hh), 3, 1)
    reset = (hgates[0] + igates[0]).sigmoid()
    update = (hgates[1] + igates[1]).sigmoid()
    new = (igates[2] + hgates[2] * reset).tanh()
    return (h - new) * update + new


def _output_of(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _run_direction(cell, steps, hidden, params):
    """FullLayer over the projected steps: the outputs step by step, the last hidden state."""
    outputs = []
    for x in steps:
        hidden = cell(x, hidden, params, True)
        outputs.append(_output_of(hidden))
    return outputs, hidden


def _layer(cell, input, hiddens, params):
    """A layer (one or both directions) over the sequence input (T, N, features): its output
    and the last hidden state of each direction."""
    if input.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    outputs, finals = [], []
    for direction, (hidden, p) in enumerate(zip(hiddens, params)):
        steps = list(_linear(input, p[0], p[2]).unbind(0))
        if direction:
            steps.reverse()
        out, final = _run_direction(cell, steps, hidden, p)
        if direction:
            out.reverse()
        outputs.append(OPS["stack"](out, 0))
        finals.append(final)
    if len(outputs) == 1:
        return outputs[0], finals
    return OPS["cat"](outputs, outputs[0].dim() - 1), finals


def _hidden_slice(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(h.narrow(0, start, end - start) for h in hidden)
    return hidden.narrow(0, start, end - start)


def _hidden_concat(hiddens):
    if isinstance(hiddens[0], tuple):
        return tuple(OPS["cat"](list(parts), 0) for parts in zip(*hiddens))
    return OPS["cat"](hiddens, 0)


def _packed_direction(cell, projected, hidden, params, batch_sizes):
    """PackedLayer: the steps of the packed data, each batch_sizes[t] rows; where the batch
    shrinks, the finished sequences' hidden states are set aside (narrowed off), and the
    last states are all of them concatenated, longest sequence first."""
    outputs, hiddens = [], []
    offset, last = 0, batch_sizes[0]
    for size in batch_sizes:
        step = projected.narrow(0, offset, size)
        offset += size
        if last > size:
            hiddens.append(_hidden_slice(hidden, size, last))
            hidden = _hidden_slice(hidden, 0, size)
        last = size
        hidden = cell(step, hidden, params, True)
        outputs.append(_output_of(hidden))
    hiddens.append(hidden)
    hiddens.reverse()
    return OPS["cat"](outputs, 0), _hidden_concat(hiddens)


def _packed_reversed(cell, projected, initial, params, batch_sizes):
    """ReversedPackedLayer: the steps from the last, the hidden state growing by the initial
    states of the sequences that start where the batch grows."""
    outputs = []
    offset, last = projected.size(0), batch_sizes[-1]
    hidden = _hidden_slice(initial, 0, last)
    for size in reversed(batch_sizes):
        if size > last:
            hidden = _hidden_concat([hidden, _hidden_slice(initial, last, size)])
        step = projected.narrow(0, offset - size, size)
        offset -= size
        last = size
        hidden = cell(step, hidden, params, True)
        outputs.append(_output_of(hidden))
    outputs.reverse()
    return OPS["cat"](outputs, 0), hidden


def _packed_layer(cell, data, hiddens, params, batch_sizes):
    """A layer (one or both directions) over packed data: its packed output and the last
    hidden state of each direction (PackedBidirectionalLayer cats the directions' data)."""
    outputs, finals = [], []
    for direction, (hidden, p) in enumerate(zip(hiddens, params)):
        run = _packed_reversed if direction else _packed_direction
        out, final = run(cell, _linear(data, p[0], p[2]), hidden, p, batch_sizes)
        outputs.append(out)
        finals.append(final)
    if len(outputs) == 1:
        return outputs[0], finals
    return OPS["cat"](outputs, -1), finals


# ------------------------------------------------------------------ RNN, LSTM, GRU

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """The layers' parameters (weight_ih_l{k}[_reverse], weight_hh_l{k}, bias_ih_l{k},
    bias_hh_l{k}), their checks and printing, as PyTorch's RNNBase."""

    _torch_name = "torch.nn.modules.rnn.RNNBase"

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first = bias, batch_first
        self.dropout = float(dropout) if isinstance(dropout, (int, float)) else dropout
        self.bidirectional, self.proj_size = bidirectional, proj_size
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) \
                or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            import warnings
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        for name, value in (("bias", bias), ("batch_first", batch_first)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(value, int):
                raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        from ..ops import empty
        self._flat_weights_names, self._all_weights = [], []
        real_hidden = proj_size or hidden_size  # (the hidden state's size: h = W_hr h)
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                shapes = [(gate_size, layer_input), (gate_size, real_hidden)]
                names = ["weight_ih_l{}{}", "weight_hh_l{}{}"]
                if bias:
                    shapes += [(gate_size,), (gate_size,)]
                    names += ["bias_ih_l{}{}", "bias_hh_l{}{}"]
                if proj_size:
                    shapes.append((proj_size, hidden_size))
                    names.append("weight_hr_l{}{}")
                suffix = "_reverse" if direction == 1 else ""
                names = [n.format(layer, suffix) for n in names]
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(empty(shape, dtype=dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self):
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        pass

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -------------------------------------------------------------- checks (PyTorch's)
    def _batched(self, input, what):
        """(input with a batch dim, whether it had one)"""
        if input.dim() not in (2, 3):
            tensor = " tensor" if what == "RNN" else ""
            raise ValueError(f"{what}: Expected input to be 2D or 3D, got {input.dim()}D"
                             f"{tensor} instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        return input, batched

    def _check_input(self, input, packed=False):
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight.dtype}). Convert input: input.to({weight.dtype}), or "
                             f"convert model: model.to({input.dtype})")
        if input.dim() != (2 if packed else 3):
            raise RuntimeError(f"input must have {2 if packed else 3} dimensions, got "
                               f"{input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _expected_hidden(self, input, cell=False, batch_sizes=None):
        """h's expected size (c's, the hidden size's, with cell=True); batch_sizes: a packed
        input's"""
        if batch_sizes is not None:
            batch = batch_sizes[0]
        else:
            batch = input.size(0) if self.batch_first else input.size(1)
        size = self.hidden_size if cell else self.proj_size or self.hidden_size
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def _check_hidden(self, hx, expected, message="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected:
            raise RuntimeError(message.format(expected, list(hx.size())))

    def _zeros(self, input, cell=False, batch_sizes=None):
        from ..ops import zeros
        return zeros(self._expected_hidden(input, cell, batch_sizes), dtype=input.dtype)

    # -------------------------------------------------------------- the recurrence
    def _run(self, cell, input, hiddens, batch_sizes=None):
        """_rnn_impl: the layers one after the other (dropout between them in training),
        the input (T, N, features) or (N, T, features) with batch_first, or a packed
        sequence's data and batch sizes (a list); hiddens: each layer and direction's initial
        state. The output and the last states."""
        packed = batch_sizes is not None
        if self.batch_first and not packed:
            input = input.transpose(0, 1)
        directions = 2 if self.bidirectional else 1
        check_numel((self.num_layers * directions,) + tuple(input.shape[:1 if packed else 2])
                    + (_GATES[self.mode] * self.hidden_size,))
        kinds = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        params = []
        for names in self._all_weights:  # (w_ih, w_hh, b_ih, b_hh, w_hr; None where absent)
            named = {n.split("_l")[0]: getattr(self, n) for n in names}
            params.append(tuple(named.get(kind) for kind in kinds))
        finals = []
        for layer in range(self.num_layers):
            span = slice(layer * directions, (layer + 1) * directions)
            if packed:
                input, last = _packed_layer(cell, input, hiddens[span], params[span],
                                            batch_sizes)
            else:
                input, last = _layer(cell, input, hiddens[span], params[span])
            finals += last
            if self.dropout and self.training and layer < self.num_layers - 1:
                input = F.dropout(input, self.dropout, True)
        if self.batch_first and not packed:  # (RNN's and GRU's in place, TransposeBackward1; LSTM's not)
            input = input.transpose(0, 1) if self.mode == "LSTM" else input.transpose_(0, 1)
        return input, finals


class RNN(RNNBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu), layer after layer."""

    _torch_name = "torch.nn.modules.rnn.RNN"

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        return _one_hidden(self, "RNN", _simple_cell(self.nonlinearity), input, hx)


def _signature(*names):
    """The arguments PyTorch documents for a layer (its __init__ takes *args, **kwargs)."""
    base = inspect.signature(RNNBase.__init__).parameters
    defaults = dict(base, nonlinearity=inspect.Parameter(
        "nonlinearity", inspect.Parameter.POSITIONAL_OR_KEYWORD, default="tanh"))
    return inspect.Signature([defaults[n] for n in names])


_LAYER_ARGUMENTS = ("self", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                    "dropout", "bidirectional")
RNN.__init__.__signature__ = _signature(*_LAYER_ARGUMENTS[:4], "nonlinearity",
                                        *_LAYER_ARGUMENTS[4:], "device", "dtype")


def _permute(hidden, permutation):
    """permute_hidden: the batch (dim 1) of h (and c) in the permutation's order."""
    if permutation is None:
        return hidden
    if isinstance(hidden, tuple):
        return tuple(h.index_select(1, permutation) for h in hidden)
    return hidden.index_select(1, permutation)


def _packed(module, cell, input, hx):
    """The forward of a layer over a PackedSequence: the output packed as the input (its
    batch sizes and indices), the last states of each sequence's last real step, in the
    order of the sequences before they were sorted.  (LSTM's Python checks nothing here: its
    kernel's ops refuse what does not fit, as here.)"""
    from .rnn_utils import PackedSequence, batch_size_list
    data, batch_sizes, sorted_indices, unsorted_indices = input
    sizes = batch_size_list(batch_sizes)   # (a step each: the steps' outputs a tensor each)
    lstm = module.mode == "LSTM"
    if hx is None:
        hx = module._zeros(data, batch_sizes=sizes)
        if lstm:
            hx = (hx, module._zeros(data, cell=True, batch_sizes=sizes))
    else:
        hx = _permute(hx, sorted_indices)
    if lstm:
        output, finals = module._run(cell, data, list(zip(hx[0].unbind(0), hx[1].unbind(0))),
                                     sizes)
        hidden = (OPS["stack"]([h for h, _ in finals], 0),
                  OPS["stack"]([c for _, c in finals], 0))
    else:
        module._check_input(data, packed=True)
        module._check_hidden(hx, module._expected_hidden(data, batch_sizes=sizes))
        output, finals = module._run(cell, data, list(hx.unbind(0)), sizes)
        hidden = OPS["stack"](finals, 0)
    return (PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices),
            _permute(hidden, unsorted_indices))


def _is_packed(input):
    from .rnn_utils import PackedSequence
    return isinstance(input, PackedSequence)


def _one_hidden(module, what, cell, input, hx):
    """RNN's and GRU's forward: (output, h_n)."""
    if _is_packed(input):
        return _packed(module, cell, input, hx)
    input, batched = module._batched(input, what)
    if hx is not None:
        if not batched and hx.dim() != 2:
            raise RuntimeError("For unbatched 2-D input, hx should also be 2-D but got "
                               f"{hx.dim()}-D tensor")
        if batched and hx.dim() != 3:
            raise RuntimeError("For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        if not batched:
            hx = hx.unsqueeze(1)
    else:
        hx = module._zeros(input)
    module._check_input(input)
    module._check_hidden(hx, module._expected_hidden(input))
    output, finals = module._run(cell, input, list(hx.unbind(0)))
    hidden = OPS["stack"](finals, 0)
    if not batched:
        output = output.squeeze(0 if module.batch_first else 1)
        hidden = hidden.squeeze(1)
    return output, hidden


class LSTM(RNNBase):
    """Long short-term memory layers: (output, (h_n, c_n))."""

    _torch_name = "torch.nn.modules.rnn.LSTM"

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        if _is_packed(input):
            return _packed(self, _lstm_cell, input, hx)
        input, batched = self._batched(input, "LSTM")
        if hx is None:
            hx = (self._zeros(input), self._zeros(input, cell=True))
        else:
            dims = (hx[0].dim(), hx[1].dim())
            if batched and dims != (3, 3):
                raise RuntimeError("For batched 3-D input, hx and cx should also be 3-D but got "
                                   f"({dims[0]}-D, {dims[1]}-D) tensors")
            if not batched:
                if dims != (2, 2):
                    raise RuntimeError("For unbatched 2-D input, hx and cx should also be 2-D "
                                       f"but got ({dims[0]}-D, {dims[1]}-D) tensors")
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self._check_input(input)
        self._check_hidden(hx[0], self._expected_hidden(input),
                           "Expected hidden[0] size {}, got {}")
        self._check_hidden(hx[1], self._expected_hidden(input, cell=True),
                           "Expected hidden[1] size {}, got {}")
        output, finals = self._run(_lstm_cell, input,
                                   list(zip(hx[0].unbind(0), hx[1].unbind(0))))
        h_n = OPS["stack"]([h for h, _ in finals], 0)
        c_n = OPS["stack"]([c for _, c in finals], 0)
        if not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit layers: (output, h_n)."""

    _torch_name = "torch.nn.modules.rnn.GRU"

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return _one_hidden(self, "GRU", _gru_cell, input, hx)


LSTM.__init__.__signature__ = _signature(*_LAYER_ARGUMENTS, "proj_size", "device", "dtype")
GRU.__init__.__signature__ = _signature(*_LAYER_ARGUMENTS, "device", "dtype")


# ------------------------------------------------------------------ the cells as modules

class RNNCellBase(Module):
    _torch_name = "torch.nn.modules.rnn.RNNCellBase"
    _chunks = 1

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        from ..ops import empty
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gates = self._chunks * hidden_size
        self.weight_ih = Parameter(empty((gates, input_size), dtype=dtype))
        self.weight_hh = Parameter(empty((gates, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(empty(gates, dtype=dtype))
            self.bias_hh = Parameter(empty(gates, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    reset_parameters = RNNBase.reset_parameters

    def _params(self):
        return (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)

    def _check(self, input, hidden, label):
        """check_rnn_cell_forward_input and _hidden (RNN.cpp)"""
        if label == 0 and input.size(1) != self.weight_ih.size(1):
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} "
                               f"expected {self.weight_ih.size(1)}")
        if input.size(0) != hidden.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} "
                               f"batch size {hidden.size(0)}")
        if hidden.size(1) != self.weight_hh.size(1):
            raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                               f"{hidden.size(1)}, expected {self.weight_hh.size(1)}")

    def _prepare(self, input, hiddens):
        """PyTorch's cells' forward up to the cell: input and hiddens with a batch dim (zeros
        for hiddens None), and whether input had one."""
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D "
                             "instead")
        for label, h in hiddens:
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {h.dim()}D "
                                 "instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hiddens[0][1] is None:
            from ..ops import zeros
            zero = zeros((input.size(0), self.hidden_size), dtype=input.dtype)
            states = [zero] * len(hiddens)
        else:
            states = [h if batched else h.unsqueeze(0) for _, h in hiddens]
        for label, h in enumerate(states):
            self._check(input, h, label)
        return input, states, batched


class RNNCell(RNNCellBase):
    _torch_name = "torch.nn.modules.rnn.RNNCell"

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (hx,), batched = self._prepare(input, [("hidden", hx)])
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        out = _simple_cell(self.nonlinearity)(input, hx, self._params(), False)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    _torch_name = "torch.nn.modules.rnn.LSTMCell"
    _chunks = 4

    def forward(self, input, hx=None):
        pairs = [("hx[0]", None), ("hx[1]", None)] if hx is None else \
            [(f"hx[{i}]", h) for i, h in enumerate(hx)]
        input, states, batched = self._prepare(input, pairs)
        if len(states) != 2:
            raise RuntimeError("lstm_cell expects two hidden states")
        h, c = _lstm_cell(input, tuple(states), self._params(), False)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    _torch_name = "torch.nn.modules.rnn.GRUCell"
    _chunks = 3

    def forward(self, input, hx=None):
        input, (hx,), batched = self._prepare(input, [("hidden", hx)])
        out = _gru_cell(input, hx, self._params(), False)
        return out if batched else out.squeeze(0)
