"""torch.nn.utils.rnn (pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence,
unpack_sequence, unpad_sequence, PackedSequence) and the recurrent layers over packed
sequences, against PyTorch 2.13.

The functions are PyTorch's Python over the same ops, so the graph's nodes are PyTorch's
(PackPaddedSequenceBackward0, CopySlices, IndexSelectBackward0, IndexBackward0, ...): compared
here to the depth of _graph.  Their values are copies, bit for bit; a recurrent layer's agree to
about 1e-15 relative in float64 (BLAS's addmm, see test_rnn_oracle.py)."""

import numpy as np
import pytest

import gradcli
from test_rnn_oracle import _data, _error, _flat, _graph, answers, compare, gradients

FUNCTIONS = {
    # name: (program of torch (lib), x and the rnn utils (U); the leaves' shapes)
    "pack_padded": ("U.pack_padded_sequence(x, [4, 2, 1])", [(4, 3, 2)]),
    "pack_padded_lengths_tensor": ("U.pack_padded_sequence(x, lib.tensor([4, 4, 3]))",
                                   [(4, 3)]),
    "pack_padded_batch_first": ("U.pack_padded_sequence(x, [3, 1], batch_first=True)",
                                [(2, 3, 2)]),
    "pack_padded_unsorted": ("U.pack_padded_sequence(x, lib.tensor([1, 4, 2]), "
                             "enforce_sorted=False)", [(4, 3, 2)]),
    "pack_padded_unsorted_batch_first": (
        "U.pack_padded_sequence(x, [2, 3, 3, 1], batch_first=True, enforce_sorted=False)",
        [(4, 3)]),
    "pad_packed": ("U.pad_packed_sequence(U.pack_padded_sequence(x, [4, 2, 1]))", [(4, 3, 2)]),
    "pad_packed_unsorted": ("U.pad_packed_sequence(U.pack_padded_sequence(x, [1, 4, 2], "
                            "enforce_sorted=False), padding_value=-1.5)", [(4, 3, 2)]),
    "pad_packed_batch_first_total": (
        "U.pad_packed_sequence(U.pack_padded_sequence(x, [3, 3, 2, 2, 1], batch_first=True), "
        "batch_first=True, total_length=5)", [(5, 3, 2)]),
    "pad_sequence": ("U.pad_sequence([x, y, z])", [(2, 3), (4, 3), (1, 3)]),
    "pad_sequence_batch_first_left": (
        "U.pad_sequence((x, y, z), batch_first=True, padding_value=2.5, padding_side='left')",
        [(2,), (4,), (3,)]),
    "pad_sequence_left": ("U.pad_sequence([x, y], padding_side='left')", [(3, 2, 2), (1, 2, 2)]),
    "pack_sequence": ("U.pack_sequence([x, y, z])", [(4, 2), (2, 2), (2, 2)]),
    "pack_sequence_unsorted": ("U.pack_sequence([x, y, z], enforce_sorted=False)",
                               [(2, 2), (4, 2), (3, 2)]),
    "unpack_sequence": ("U.unpack_sequence(U.pack_sequence([x, y, z], enforce_sorted=False))",
                        [(2, 2), (4, 2), (3, 2)]),
    "unpad_sequence": ("U.unpad_sequence(x * 1, lib.tensor([3, 1, 2]))", [(3, 3, 2)]),
    "unpad_sequence_batch_first": ("U.unpad_sequence(x, lib.tensor([2, 4]), batch_first=True)", [(2, 4)]),
}


def _values(result):
    """The tensors of a result: a PackedSequence's four, a list's or tuple's."""
    if isinstance(result, (list, tuple)):
        return [t for r in result for t in _values(r)]
    return [] if result is None else [result]


def run_function(lib, name):
    program, shapes = FUNCTIONS[name]
    leaves = [_data(lib, s, i + 1) for i, s in enumerate(shapes)]
    names = dict(zip("xyz", leaves), lib=lib, U=lib.nn.utils.rnn)
    result = eval(program, names)
    shown = repr(result) if type(result).__name__ == "PackedSequence" else None
    outputs = _values(result)
    floats = [t for t in outputs if t.dtype == lib.float64]
    # (the square: these functions are linear, a second derivative needs more)
    grads, second = gradients(lib, floats, leaves, square=True)
    return {"repr": shown, "types": [type(r).__name__ for r in
                                     (result if isinstance(result, (list, tuple)) else [result])],
            "dtypes": [str(t.dtype) for t in outputs],
            "graphs": [_graph(t.grad_fn) for t in floats], **answers(outputs, grads, second)}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_rnn_utils_match_pytorch(name, oracle):
    compare(run_function(gradcli, name), oracle(lambda torch: run_function(torch, name)),
            rtol=0, atol=0)


def test_packed_sequence_prints_and_converts_as_pytorchs(oracle):
    def run(lib):
        U = lib.nn.utils.rnn
        p = U.pack_padded_sequence(lib.tensor([[1., 2.], [3., 0.]]), [2, 1], batch_first=True)
        made = U.PackedSequence(lib.tensor([1, 2]), lib.tensor([1, 1]))
        pair = U.PackedSequence((lib.tensor([1., 2.]), lib.tensor([2])), lib.tensor([1, 0]))
        return [repr(p), str(made), repr(pair), repr(p.double()), repr(p.long()),
                p.float() is p, p.to(lib.float32) is p, p.to("cpu") is p,
                p.to(lib.float64).data.dtype == lib.float64, repr(type(p)),
                isinstance(p, tuple), len(p), repr(p[1]), p.is_cuda,
                repr(U.invert_permutation(lib.tensor([2, 0, 3, 1]))),
                U.invert_permutation(None)]
    assert run(gradcli) == oracle(run)


PACKED_RNNS = {
    # name: (module, padded input's shape, lengths, enforce_sorted, initial states' shapes)
    "rnn": ("torch.nn.RNN(3, 2)", (4, 3, 3), [4, 2, 1], True, None),
    "rnn_relu_h0_unsorted": ("torch.nn.RNN(3, 2, nonlinearity='relu')", (4, 3, 3), [2, 4, 1],
                             False, [(1, 3, 2)]),
    "rnn_deep_bidirectional": ("torch.nn.RNN(3, 2, 2, bidirectional=True)", (3, 4, 3),
                               [3, 3, 2, 1], True, None),
    "gru_bidirectional_unsorted": ("torch.nn.GRU(3, 2, bidirectional=True)", (4, 3, 3),
                                   [1, 4, 3], False, [(2, 3, 2)]),
    "gru_batch_first": ("torch.nn.GRU(3, 2, batch_first=True)", (3, 4, 3), [4, 2, 2], True,
                        None),
    "lstm": ("torch.nn.LSTM(3, 2)", (4, 3, 3), [4, 3, 1], True, None),
    "lstm_h0_c0_unsorted": ("torch.nn.LSTM(3, 2)", (4, 3, 3), [2, 1, 4], False,
                            [(1, 3, 2), (1, 3, 2)]),
    "lstm_deep_bidirectional_unsorted": (
        "torch.nn.LSTM(3, 2, num_layers=2, bidirectional=True)", (3, 3, 3), [2, 3, 1], False,
        None),
    "lstm_proj_batch_first": ("torch.nn.LSTM(3, 3, proj_size=1, batch_first=True)", (2, 3, 3),
                              [3, 2], True, [(1, 2, 1), (1, 2, 3)]),
    "lstm_equal_lengths": ("torch.nn.LSTM(3, 2, bidirectional=True)", (2, 2, 3), [2, 2], True,
                           None),
}


def run_packed_rnn(lib, name):
    program, shape, lengths, enforce_sorted, states = PACKED_RNNS[name]
    lib.manual_seed(0)
    module = eval(program, {"torch": lib}).double()
    x = _data(lib, shape, 1)
    leaves = [x] + [_data(lib, s, 2 + i) for i, s in enumerate(states or ())]
    U = lib.nn.utils.rnn
    packed = U.pack_padded_sequence(x, lengths, batch_first=module.batch_first,
                                    enforce_sorted=enforce_sorted)
    args = [packed] if states is None else \
        [packed, leaves[1] if len(states) == 1 else tuple(leaves[1:])]
    out, hidden = module(*args)
    padded, out_lengths = U.pad_packed_sequence(out, batch_first=module.batch_first)
    outputs = [out.data, padded] + _flat(hidden)
    grads, second = gradients(lib, outputs, leaves + list(module.parameters()))
    return {"type": type(out).__name__, "batch_sizes": out.batch_sizes.tolist(),
            "indices": [None if t is None else t.tolist()
                        for t in (out.sorted_indices, out.unsorted_indices)],
            "lengths": out_lengths.tolist(),
            "graphs": [_graph(t.grad_fn, limit=5) for t in outputs],
            **answers(outputs, grads, second)}


@pytest.mark.parametrize("name", sorted(PACKED_RNNS))
def test_recurrent_layers_over_packed_sequences_match_pytorch(name, oracle):
    compare(run_packed_rnn(gradcli, name), oracle(lambda torch: run_packed_rnn(torch, name)))


def test_the_last_states_are_each_sequences_last_real_step():
    """h_n of a packed batch is the padded run's output at each sequence's own last step (not
    at the padded end), and in the batch's original order."""
    gradcli.manual_seed(3)
    lstm = gradcli.nn.LSTM(2, 3).double()
    x = gradcli.randn(5, 3, 2, dtype=gradcli.float64)
    lengths = [2, 5, 3]
    U = gradcli.nn.utils.rnn
    out, (h_n, c_n) = lstm(U.pack_padded_sequence(x, lengths, enforce_sorted=False))
    padded, _ = U.pad_packed_sequence(out)
    for b, length in enumerate(lengths):
        alone, (h, c) = lstm(x[:length, b:b + 1])
        assert gradcli.allclose(h_n[0, b], h[0, 0], rtol=1e-14, atol=1e-15)
        assert gradcli.allclose(c_n[0, b], c[0, 0], rtol=1e-14, atol=1e-15)
        assert gradcli.allclose(padded[:length, b], alone[:, 0], rtol=1e-14, atol=1e-15)
        assert (padded[length:, b] == 0).all()


ERRORS = [
    "U.pack_padded_sequence(torch.ones(4, 3, 2), [4, 2, 0])",
    "U.pack_padded_sequence(torch.ones(4, 3, 2), [4, 2])",
    "U.pack_padded_sequence(torch.ones(4, 3, 2), [2, 4, 1])",
    "U.pack_padded_sequence(torch.ones(0, 3, 2), [1, 1, 1])",
    "U.pack_padded_sequence(torch.ones(4), [1])",
    "U.pack_padded_sequence(torch.ones(4, 3, 2), [4, -1, 1], enforce_sorted=False)",
    "U.pack_padded_sequence(torch.ones(4, 3, 2), [[4, 2, 1]])",
    "U.pack_padded_sequence(torch.ones(4, 3, 2), torch.tensor(3))",
    "U.pack_padded_sequence(torch.ones(4, 3, 2), [4.5, 2, 1]).batch_sizes.tolist()",
    "U.pack_padded_sequence(torch.ones(4, 3, 2), torch.tensor([4.7, 2, 1])).batch_sizes.tolist()",
    "U.unpad_sequence(torch.ones(3, 2, 1), [3, 1])",
    "U.pad_sequence([])",
    "U.pad_sequence(3)",
    "U.pad_sequence([torch.ones(2, 3), torch.ones(3, 2)])",
    "U.pad_sequence([torch.ones(2), torch.ones(3)], padding_side='middle')",
    "U.pad_sequence([torch.tensor(1.), torch.ones(3)])",
    "U.pad_sequence([torch.ones(2, dtype=torch.int64), torch.ones(3)], padding_value=1.5)"
    ".tolist()",
    "U.pad_sequence(torch.ones(2, 3)).tolist()",
    "U.pad_packed_sequence(U.pack_padded_sequence(torch.ones(4, 3), [4, 2, 1]), "
    "total_length=3)",
    "U.pack_sequence([torch.ones(2), torch.ones(3)])",
    "U.PackedSequence(torch.ones(2))",
    "torch.nn.LSTM(2, 3)(U.pack_padded_sequence(torch.ones(4, 3, 2), [4, 2, 1]), "
    "(torch.ones(1, 2, 3), torch.ones(1, 3, 3)))",
    "torch.nn.LSTM(2, 3)(U.pack_padded_sequence(torch.ones(4, 3, 2), [4, 2, 1]), "
    "(torch.ones(1, 3, 3), torch.ones(1, 2, 3)))",
    "torch.nn.LSTM(3, 3)(U.pack_padded_sequence(torch.ones(4, 3, 2), [4, 2, 1]))",
    "torch.nn.LSTM(2, 3)(U.pack_padded_sequence(torch.ones(4, 3, 2, dtype=torch.float64), "
    "[4, 2, 1]))",
    "torch.nn.GRU(2, 3)(U.pack_padded_sequence(torch.ones(4, 3, 2), [4, 2, 1]), "
    "torch.ones(1, 2, 3))",
    "torch.nn.GRU(3, 3)(U.pack_padded_sequence(torch.ones(4, 3, 2), [4, 2, 1]))",
    "torch.nn.RNN(2, 3)(U.pack_padded_sequence(torch.ones(4, 3, 2, dtype=torch.float64), "
    "[4, 2, 1]))",
    "torch.nn.RNN(2, 3)(U.pack_padded_sequence(torch.ones(4, 3, 2), [4, 2, 1]), "
    "torch.ones(1, 3, 3))[1].shape",
]


@pytest.mark.parametrize("program", ERRORS)
def test_errors_are_pytorchs(program, oracle):
    def run(lib):
        return _error(lib, program, U=lib.nn.utils.rnn)
    assert run(gradcli) == oracle(run)
