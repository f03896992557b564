"""A Tensor method call whose arguments PyTorch's argument parser refuses gets the parser's
TypeError, word for word: "received an invalid combination of arguments" with its signatures
(and its `!type!` marks), "argument 'x' (position n) must be T, not U", "failed to unpack the
object at pos n", too many positional arguments, an unexpected keyword (gradcli.ops.arg_errors,
from the signatures the op table declares)."""

import pytest

import gradcli

CALLS = [
    # arithmetic methods (and their in-place forms)
    "x.add(1, 2, 3)", "x.add('a')", "x.add(x, alpha='a')", "x.sub(x, x, x)", "x.mul('a')",
    "x.div(x, rounding_mode=3)", "x.div(x, x)", "x.pow('a')", "x.add(x, foo=1)", "x.sub_('a')",
    "x.mul_(x, x)", "x.add(None)", "x.add_('a')", "x.add_(x, x, x)", "x.sub_(x, alpha='a')",
    "x.div_(x, rounding_mode=1)", "x.pow(x, x)", "x.pow()", "x.add()", "x.fill_('a')",
    "x.lerp(x, 'a')", "x.eq('a')", "x.lt(x, x)", "x.clamp('a')", "x.clamp(min='a')",
    "x.clamp_(min='a')", "x.masked_fill('a', 1)", "x.masked_fill(x > 0, 'a')",
    # reductions
    "x.sum('a')", "x.mean('a')", "x.sum(0, 1, 2, 3)", "x.max('a')", "x.min('a')", "x.std('a')",
    "x.var('a')", "x.sum(dim=0, foo=1)", "x.max(0, 'a')", "x.sum(dim='a')", "x.prod('a')",
    "x.std(dim='a')", "x.sum(dtype='a')", "x.mean(dtype=1)", "x.sum((0, 'a'))",
    "x.sum(keepdim=True)", "x.max(dim=0, keepdim='a')", "x.min(x, 1)", "x.mean(0, True, 'a')",
    "x.amax('a')", "x.argmax('a')", "x.cumsum('a')", "x.softmax('a')", "x.softmax(0, 'a')",
    "x.log_softmax('a')", "x.logsumexp('a')", "x.topk('a')",
    # shape
    "x.view('a')", "x.view(2, 'a')", "x.reshape('a')", "x.permute('a')", "x.transpose('a', 0)",
    "x.transpose(0, 1, 2)", "x.reshape(2, 2, foo=1)", "x.permute(0, 'a')", "x.flatten('a')",
    "x.squeeze('a')", "x.unsqueeze('a')", "x.unsqueeze(0, 1)", "x.expand('a')",
    "x.expand(2, 'a')", "x.repeat('a')", "x.flip('a')", "x.view(-1, 2.0)", "x.reshape(2, 2.)",
    "x.permute(1, 0, 'a')", "x.transpose(0)", "x.chunk('a')", "x.narrow(0, 'a', 1)",
    "x.narrow(0, 0)", "x.select('a', 0)", "x.select(0)", "x.t(0)", "x.exp(1)", "x.sin('a')",
    "x.zero_(1)", "x.exp(foo=1)",
    # matmul family, index ops
    "m.mm('a')", "m.bmm('a')", "m.matmul(m, m)", "x.matmul('a')", "x.mm(m, m)", "x.mv('a')",
    "x.dot(1)", "x.bmm(x)", "x.index_select('a', v)", "x.gather(0, 'a')", "x.gather(0)",
    "x.type_as('a')",
]


def _outcome(lib, call):
    names = {"torch": lib, "x": lib.ones(2, 2), "m": lib.ones(2, 2), "v": lib.ones(2).long()}
    try:
        result = eval(call, names)
    except Exception as e:
        return [type(e).__name__, str(e)]
    return ["value", repr(result)]


@pytest.mark.parametrize("call", CALLS)
def test_method_argument_errors_are_pytorchs(call, oracle):
    assert _outcome(gradcli, call) == oracle(lambda torch: _outcome(torch, call))


def test_a_refused_call_keeps_gradcli_error_when_pytorch_takes_the_arguments():
    """Arguments PyTorch's parser takes: the op's own error stands (a shape mismatch)."""
    with pytest.raises(RuntimeError, match="size of tensor a"):
        gradcli.ones(2).add(gradcli.ones(3))


def _sample_calls():
    """(name, args, kwargs) of a method call for each sample of each op of the table that is a
    Tensor method (lists and arrays of the samples as tensors, as PyTorch's parser wants)."""
    import numpy as np
    from gradcli.ops import OPS, entries, lazy, registry

    def tensor(value):
        if isinstance(value, (list, np.ndarray)):
            return gradcli.tensor(np.asarray(value))
        return value
    lazy.load_all()
    for name, entry in sorted(OPS.items()):
        entry = entries.loaded(entry)
        if not (entry.public and entry.method) or not isinstance(entry, (registry.Op,
                                                                         registry.Overload)):
            continue
        for op in entry.ops if isinstance(entry, registry.Overload) else [entry]:
            if not isinstance(op, registry.Op) or op.variadic or op.inputs[:1] != ("self",):
                continue
            for sample in op.samples:
                args = [tensor(sample.values[i]) if i in sample.values or shape is None
                        else gradcli.ones(tuple(shape)) for i, shape in enumerate(sample.shapes)]
                kwargs = {k: tensor(v) for k, v in sample.attrs.items()}
                yield name, entry, tuple(args[1:]), kwargs


# samples whose call PyTorch refuses too: `x.std(dim=False)`, `x.view(shape=...)` (its
# keyword is `size`)
PYTORCH_REFUSES = {("std", "dim=False"), ("var", "dim=False"), ("view", "shape=(3, 2)")}


def test_every_sample_call_of_the_table_passes_the_signatures():
    """The signatures derived from the declarations take every call the op table's own samples
    make (a refusal there would replace an op's error with a wrong TypeError)."""
    from gradcli.ops import arg_errors
    checked, refused = 0, []
    for name, entry, args, kwargs in _sample_calls():
        signatures = arg_errors.method_signatures(entry, name)
        if not signatures:
            continue
        checked += 1
        message = arg_errors.refusal(signatures, name, args, kwargs,
                                     name in arg_errors.NUMBERS_AS_TENSORS)
        shown = ",".join(f"{k}={v}" for k, v in kwargs.items())
        if message is not None and (name, shown) not in PYTORCH_REFUSES:
            refused.append((name, args, kwargs, message))
    assert checked > 400 and refused == []
