"""Red team, round 9: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session, no evaluator), on what
the convolutions, poolings and layer ops brought.  A tensor with no elements may have any
sizes: an empty batch or channel count let a pooling build its window index, its divisors or
the adaptive windows' lists from sizes no element check saw, and let im2col loop over a kernel
of millions of offsets copying nothing; `one_hot` of an empty tensor made its row of classes
unchecked."""

import pytest
from processes import (assert_refused_before_made as _refused_before_made,
                       program_error as _error, program_output, traced_peak)


pytestmark = pytest.mark.usefixtures("fresh_engine")


def _functional_error(source):
    """The first line of the error `r = source` ends in (F: torch.nn.functional)."""
    return _error(f"import torch\nF = torch.nn.functional\nr = {source}\n")[0]


# ---------------------------------------------------------------------- empty inputs, big sizes

# each builds 10 ** 6 or more elements (or Python objects) from an input of no elements, under
# an element limit of 10 ** 5
EMPTY_INPUT = {
    "max_pool2d window index": "torch.nn.functional.max_pool2d(torch.zeros(0, 1, 1, 1), 1001, "
                               "stride=1, padding=500)",
    "avg_pool2d divisors": "torch.nn.functional.avg_pool2d(torch.zeros(0, 1, 1, 10 ** 7), 1, "
                           "divisor_override=3)",
    "max_pool1d": "torch.nn.functional.max_pool1d(torch.zeros(0, 1, 10 ** 7), 1)",
    "adaptive_max_pool2d": "torch.nn.functional.adaptive_max_pool2d(torch.zeros(1, 1, 1, 1), "
                           "(3 * 10 ** 6, 1))",
    "adaptive_max_pool1d": "torch.nn.functional.adaptive_max_pool1d(torch.zeros(1, 1, 1), "
                           "3 * 10 ** 6)",
    "adaptive_avg_pool2d": "torch.nn.functional.adaptive_avg_pool2d(torch.zeros(0, 1, 1, 1), "
                           "(3 * 10 ** 6, 1))",
    "one_hot": "torch.nn.functional.one_hot(torch.zeros(0, dtype=torch.long), 3 * 10 ** 6)",
}


@pytest.mark.parametrize("source", EMPTY_INPUT.values(), ids=EMPTY_INPUT.keys())
def test_a_pooling_of_an_empty_input_is_checked_before_it_is_made(source):
    """The poolings checked their im2col buffer, B * C * kernel * out elements: 0 for an empty
    batch, whose window index (kernel * out), divisors (out) and the adaptive poolings' lists
    of windows (one Python tuple a window, made before any check) were then any size; one_hot
    compared the input with arange(num_classes), made for an empty input too.  Expected:
    refused before they are made."""
    _refused_before_made(source)


def test_an_empty_convolution_with_a_huge_kernel_ends_at_once():
    """A convolution of no channels (its buffers empty, so every check passes) looped over the
    kernel's offsets copying nothing: a 300 x 300 x 300 kernel was 27 million Python
    iterations forward and again backward, minutes for a result of one zero (PyTorch's:
    instant).  Expected: computed, as PyTorch's, without the loop (PyTorch's Empty backend: an
    output of no channel, as the input)."""
    assert program_output(
        "import torch\nx = torch.zeros(1, 0, 1, 1, 1, requires_grad=True)\n"
        "w = torch.zeros(1, 0, 300, 300, 300, requires_grad=True)\n"
        "y = torch.nn.functional.conv3d(x, w, padding=150)\ny.sum().backward()\n"
        "p = torch.nn.functional.avg_pool2d(torch.zeros(0, 1, 1, 1), 301, stride=1, padding=150)\n"
        "print(y.tolist(), x.grad.shape, w.grad.shape, p.shape)\n"
    ) == ("[[]] torch.Size([1, 0, 1, 1, 1]) torch.Size([1, 0, 300, 300, 300]) "
          "torch.Size([0, 1, 1, 1])\n")


def test_poolings_and_one_hot_still_compute():
    assert program_output(
        "import torch\nF = torch.nn.functional\n"
        "print(F.max_pool2d(torch.arange(16.).view(1, 1, 4, 4), 2).flatten().tolist(),\n"
        "      F.adaptive_avg_pool1d(torch.arange(6.).view(1, 1, 6), 2).flatten().tolist(),\n"
        "      F.one_hot(torch.tensor([0, 2]), 3).tolist(),\n"
        "      F.one_hot(torch.zeros(0, dtype=torch.long), 5).shape)\n"
    ) == "[5.0, 7.0, 13.0, 15.0] [1.0, 4.0] [[1, 0, 0], [0, 0, 1]] torch.Size([0, 5])\n"


# ---------------------------------------------------------------------- calls PyTorch refuses

# each with PyTorch's error (PyTorch 2.13's answers)
PYTORCHS_ERRORS = {
    # padding (a replicate pad of an empty axis ended in NumPy's `ValueError: can't extend empty
    # axis`; a reflect pad checked every dim, a batch of 0 too, under the wrong argument number)
    "F.pad(torch.zeros(1, 3, 0), (1, 1), mode='replicate')":
        "RuntimeError: Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and "
        "other non-zero dimensions for input, but got: [1, 3, 0]",
    "F.pad(torch.zeros(3, 0, 2), (1, 1, 1, 1), mode='replicate')":
        "RuntimeError: Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and "
        "other non-zero dimensions for input, but got: [3, 0, 2]",
    "F.pad(torch.zeros(3, 0), (0, 0), mode='reflect')":
        "RuntimeError: Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and "
        "other non-zero dimensions for input, but got: [3, 0]",
    "F.pad(torch.zeros(3, 1, 2), (1, 1, 1, 1), mode='reflect')":
        "RuntimeError: Argument #6: Padding size should be less than the corresponding input "
        "dimension, but got: padding (1, 1) at dimension 1 of input [3, 1, 2]",
    "F.pad(torch.zeros(1, 1, 1), (1, 1, 1, 1), mode='reflect')":
        "RuntimeError: Argument #4: Padding size should be less than the corresponding input "
        "dimension, but got: padding (1, 1) at dimension 2 of input [1, 1, 1]",
    # kernels of integer dtypes PyTorch has none for (transposed convolutions and average
    # pooling of int8/16/32 and uint8 computed)
    "F.conv_transpose1d(torch.ones(1, 1, 3, dtype=torch.int32), "
    "torch.ones(1, 1, 2, dtype=torch.int32))":
        "NotImplementedError: \"slow_conv_transpose2d_out_cpu\" not implemented for 'Int'",
    "F.conv_transpose3d(torch.ones(1, 1, 3, 3, 3, dtype=torch.uint8), "
    "torch.ones(1, 1, 2, 2, 2, dtype=torch.uint8))":
        "NotImplementedError: \"slow_conv_transpose3d_out_cpu\" not implemented for 'Byte'",
    "F.avg_pool2d(torch.ones(1, 3, 3, dtype=torch.int16), 2)":
        "NotImplementedError: \"avg_pool2d\" not implemented for 'Short'",
    "F.avg_pool1d(torch.ones(1, 3, dtype=torch.int8), 2)":
        "NotImplementedError: \"avg_pool2d\" not implemented for 'Char'",
    # pooling and convolution shapes (aten's checks in their order; max pooling allowed a pad of
    # up to half the dilated kernel, so a window could lie wholly in the padding: index -1, its
    # gradient added to the input's last element; an empty spatial dim computed zeros)
    "F.max_pool2d(torch.ones(1, 1, 1), (1, 2), 1, (0, 2), (1, 3))":
        "RuntimeError: pad should be smaller than or equal to half of kernel size, but got "
        "padW = 2, padH = 0, kW = 2, kH = 1",
    "F.max_pool1d(torch.ones(2, 1), 2, 1, 2, 3)":
        "RuntimeError: max_pool1d() padding should be at most half of kernel size, but got "
        "padding=2 and kernel_size=2",
    "F.max_pool1d(torch.ones(2, 5), 6, 1)":
        "RuntimeError: max_pool1d() Invalid computed output size: 0",
    "F.max_pool2d(torch.ones(2, 0, 3), 2, 0)": "RuntimeError: stride should not be zero",
    "F.avg_pool2d(torch.ones(2, 0, 3), 1)":
        "RuntimeError: Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
        "input, but got:[2, 0, 3]",
    "F.max_pool2d(torch.ones(6), 2)":
        "RuntimeError: non-empty 3D or 4D (batch mode) tensor expected for input",
    "F.conv3d(torch.ones(1, 2, 0, 5, 5), torch.ones(2, 2, 1, 1, 1), padding=1)":
        "RuntimeError: Only zero batch or zero channel inputs are supported, but got input "
        "shape: [1, 2, 0, 5, 5]",
    "F.conv1d(torch.ones(1, 1, 0), torch.ones(1, 1, 1), padding=1)":
        "RuntimeError: Only zero batch or zero channel inputs are supported, but got input "
        "shape: [1, 1, 1, 0]",
    # multinomial (rows of no category ended in NumPy's reshape ValueError; the checks of the
    # probabilities, now of arrays, made a Python list of each row: 2 ** 24 floats, 0.5 GB)
    "torch.multinomial(torch.ones(3, 0), 2, True)":
        "RuntimeError: invalid multinomial distribution (sum of probabilities <= 0)",
    "torch.multinomial(torch.ones(0), 1, True)":
        "RuntimeError: aminmax(): cannot compute aminmax over an empty dimension as the "
        "operation has no identity.",
    "torch.multinomial(torch.tensor([1.0, float('inf'), -1.0]), 2, True)":
        "RuntimeError: invalid multinomial distribution (encountering probability entry = "
        "infinity or NaN)",
    "torch.multinomial(torch.tensor([1.0, float('nan'), float('inf')]), 2, True)":
        "RuntimeError: invalid multinomial distribution (encountering probability entry < 0)",
}


@pytest.mark.parametrize("source, line", PYTORCHS_ERRORS.items(),
                         ids=range(len(PYTORCHS_ERRORS)))
def test_calls_pytorch_refuses_end_in_its_error(source, line):
    """Each ended in another error (NumPy's words), or computed.  Expected: PyTorch's error
    (the table's comments say what each did)."""
    assert _functional_error(source) == line


def test_padding_an_empty_batch_is_computed():
    assert program_output(
        "import torch\nF = torch.nn.functional\n"
        "print(F.pad(torch.zeros(0, 3, 2), (1, 1), mode='reflect').shape,\n"
        "      F.pad(torch.zeros(0, 3, 1, 2, 2), (1, 1, 1, 1, 1, 1), mode='replicate').shape)\n"
    ) == "torch.Size([0, 3, 4]) torch.Size([0, 3, 3, 4, 4])\n"


# ---------------------------------------------------------------------- containers' keys

# each reads an attribute no program may name (README: no attributes starting with `_`),
# through a container's key
CONTAINER_READS = {
    "__class__": "d = torch.nn.ParameterDict()\nr = d['__class__']",
    "__dict__": "d = torch.nn.ParameterDict()\nr = d['__dict__']",
    "__reduce_ex__": "d = torch.nn.ParameterDict()\nr = d['__reduce_ex__'](2)[0]",
    "_parameters": "d = torch.nn.ParameterDict({'a': torch.nn.Parameter(torch.ones(1))})\n"
                   "r = d['_parameters']",
    "a list's formatted name": "l = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(1))])"
                               "\nr = l['__dict__%.0s']",
}


@pytest.mark.parametrize("source", CONTAINER_READS.values(), ids=CONTAINER_READS.keys())
def test_a_containers_key_reads_no_underscore_attribute(source):
    """ParameterDict's `d[key]` was `getattr(d, key)` for any string a program gave:
    `d['__class__']`, `d['__dict__']` (the module's registries), `d['__reduce_ex__'](2)[0]`
    (copyreg.__newobj__, which calls any class's __new__).  Expected: a `_` key is the
    container's key only, never an attribute (AttributeError when there is none); a
    ParameterList's index is an integer."""
    line, printed = _error(f"import torch\n{source}\nprint(type(r))\n")
    assert printed == "" and line.split(":")[0] in ("AttributeError", "TypeError"), (line,
                                                                                     printed)


def test_a_containers_key_writes_no_underscore_attribute():
    """`d[key] = v` was setattr and `del d[key]` delattr: `d['__class__'] = C` changed the
    module's class, `d['_parameters'] = {...}` replaced its registry; ParameterList's
    `l[i] = v` was `setattr(l, str(i % len(l)), v)`, and a string's `%` formats:
    `l['__class__%.0s'] = C`.  Expected: the values are the containers' entries; the modules
    keep their classes and registries."""
    assert program_output(
        "import torch\nnn = torch.nn\nd = nn.ParameterDict({'a': nn.Parameter(torch.ones(1))})\n"
        "d['__class__'] = nn.ModuleDict\nd['_parameters'] = {'w': 1}\n"
        "print(type(d).__name__, list(d.state_dict()), len(list(d.parameters())))\n"
        "del d['_parameters']\nprint(list(d.state_dict()))\n"
        "l = nn.ParameterList([nn.Parameter(torch.ones(1))])\n"
        "try:\n    l['__class__%.0s'] = nn.ModuleDict\nexcept TypeError as e:\n    print(e)\n"
        "print(type(l).__name__)\n"
    ) == ("ParameterDict ['a'] 1\n['a']\n'str' object cannot be interpreted as an integer\n"
          "ParameterList\n")


def test_underscore_keys_still_hold_values():
    assert program_output(
        "import torch\nnn = torch.nn\nd = nn.ParameterDict({'a': nn.Parameter(torch.ones(1))})\n"
        "d['_x'] = torch.ones(2)\nd['_y'] = 3\nd['__class__'] = torch.zeros(1)\n"
        "print(d['_x'].shape, d['_y'], type(d['__class__']).__name__, list(d.keys()),\n"
        "      list(d.state_dict()), len(list(d.parameters())))\n"
        "del d['_x']\nl = nn.ParameterList([torch.ones(1)])\nl[-1] = torch.ones(2)\n"
        "print(list(d.state_dict()), d.pop('_y'), type(l[0]).__name__, l[0].shape)\n"
    ) == ("torch.Size([2]) 3 Parameter ['a', '_x', '_y', '__class__'] ['a', '_x', '__class__'] 3\n"
          "['a', '__class__'] 3 Parameter torch.Size([2])\n")


# ---------------------------------------------------------------------- vmap

@pytest.mark.parametrize("body", ["torch.tensor(np.asarray(x))", "x + np.ones(2)", "np.sin(x)"])
def test_numpy_reads_no_batched_sample(body):
    """vmap refused `x.numpy()`, `x.tolist()` and `x.item()` of a batched sample (PyTorch's
    BatchedTensor has no storage) but NumPy read its memory through `__array__`:
    `np.asarray(x)`, `x + a` of an array, `np.sin(x)` computed on each sample.  Expected:
    PyTorch's refusal."""
    line, _ = _error(f"import torch\nimport numpy as np\n"
                     f"r = torch.func.vmap(lambda x: {body})(torch.ones(3, 2))\n")
    assert line == ("RuntimeError: Cannot access data pointer of Tensor that doesn't have "
                    "storage"), line


def test_numpy_still_reads_what_vmap_does_not_map():
    assert program_output(
        "import torch\nimport numpy as np\nw = torch.ones(2)\n"
        "print(torch.func.vmap(lambda x: x * torch.tensor(np.asarray(w) + 1))(torch.ones(3, 2))"
        ".tolist())\n") == "[[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]\n"


# ---------------------------------------------------------------------- unfold of a 0-d tensor

def test_an_empty_window_of_a_zero_dim_tensor():
    """`torch.tensor(2.).unfold(0, 0, 1)` ended in NumPy's `ValueError: cannot reshape array of
    size 1 into shape (0,)`, and its gradient could not be made either.  Expected: PyTorch's
    empty window, and a zero gradient (PyTorch 2.13's answers)."""
    assert program_output(
        "import torch\nx = torch.tensor(2., requires_grad=True)\ny = x.unfold(0, 0, 1)\n"
        "y.sum().backward()\nprint(y.shape, y.grad_fn.name(), x.grad)\nx.grad = None\n"
        "x.unfold(0, 1, 3).sum().backward()\nprint(x.grad)\n"
    ) == "torch.Size([0]) UnfoldBackward0 tensor(0.)\ntensor(1.)\n"


# ---------------------------------------------------------------------- norms of empty inputs

def test_norms_of_empty_inputs_are_pytorchs():
    """layer_norm over no elements printed NumPy's `RuntimeWarning: Mean of empty slice`;
    batch_norm of no channels ended in `ZeroDivisionError: integer division or modulo by
    zero`, and of a 1-d input in `IndexError: tuple index out of range`.  Expected: PyTorch's
    results and words (PyTorch 2.13's answers)."""
    assert program_output(
        "import torch\nF = torch.nn.functional\n"
        "print(F.layer_norm(torch.ones(2, 0), (0,)).shape,\n"
        "      F.batch_norm(torch.ones(2, 0), None, None, training=True).shape,\n"
        "      F.batch_norm(torch.ones(2, 0, 3), torch.zeros(0), torch.ones(0), "
        "training=True).shape)\n"
        "for r in (torch.zeros(1), torch.zeros(0)):\n"
        "    try:\n"
        "        F.batch_norm(torch.ones(3), r, torch.ones(r.numel()), training=False)\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
    ) == ("torch.Size([2, 0]) torch.Size([2, 0]) torch.Size([2, 0, 3])\n"
          "RuntimeError running_mean should contain 0 elements not 1\n"
          "IndexError Dimension out of range (expected to be in range of [-1, 0], but got 1)\n")


def test_embedding_max_norm_checks_its_rows_as_pytorch():
    """F.embedding(max_norm=...) renormalized rows by NumPy indexing: an index past the weight
    ended in NumPy's `index 5 is out of bounds for axis 0 with size 3`, a weight of another
    rank was renormalized as it came.  Expected: PyTorch's checks (its -1 selects the last
    row, then embedding refuses it; PyTorch 2.13's answers)."""
    assert program_output(
        "import torch\nF = torch.nn.functional\n"
        "for idx, w in (([5], torch.ones(3, 2)), ([0, 7, -9], torch.ones(3, 2)),\n"
        "               ([-1], torch.ones(3, 2)), ([0], torch.ones(3))):\n"
        "    try:\n"
        "        F.embedding(torch.tensor(idx), w, max_norm=1.0)\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
    ) == ("IndexError select(): index 5 out of range for tensor of size [3, 2] at dimension 0\n"
          "IndexError select(): index -9 out of range for tensor of size [3, 2] at dimension 0\n"
          "IndexError index out of range in self\n"
          "RuntimeError Expected 2-dimensional tensor, but got 1-dimensional tensor for "
          "argument #1 'self' (while checking arguments for embedding_renorm_)\n")


# (PyTorch 2.13's answers: the padded values, and the gradient of their weighted sum)
NEGATIVE_PADS = {
    ("replicate", (-1, 2)): "[[[1.0, 2.0, 3.0, 3.0, 3.0]]] [[[0.0, 1.0, 2.0, 12.0]]]",
    ("replicate", (2, -3)): "[[[0.0, 0.0, 0.0]]] [[[6.0, 0.0, 0.0, 0.0]]]",
    ("reflect", (2, -3)): "[[[2.0, 1.0, 0.0]]] [[[3.0, 2.0, 1.0, 0.0]]]",
    ("reflect", (1, -1)): "[[[1.0, 0.0, 1.0, 2.0]]] [[[2.0, 4.0, 4.0, 0.0]]]",
    ("reflect", (-3, -1)): "RuntimeError input (W: 4) is too small. Calculated output W: 0",
}


@pytest.mark.parametrize("mode, pad", NEGATIVE_PADS, ids=range(len(NEGATIVE_PADS)))
def test_a_negative_reflect_or_replicate_pad_crops(mode, pad):
    """A negative width of a reflect or replicate pad (a crop, in PyTorch's kernels) reached
    NumPy's pad: `ValueError: index can't contain negative values`.  Expected: PyTorch's
    values, gradients and errors."""
    assert program_output(
        "import torch\nx = torch.arange(4.).view(1, 1, 4).requires_grad_()\ntry:\n"
        f"    y = torch.nn.functional.pad(x, {pad}, mode='{mode}')\n"
        "    w = torch.arange(1., y.numel() + 1).view(y.shape)\n"
        "    print(y.tolist(), torch.autograd.grad((y * w).sum(), x)[0].tolist())\n"
        "except RuntimeError as e:\n    print('RuntimeError', e)\n"
    ) == NEGATIVE_PADS[mode, pad] + "\n"


def test_a_container_of_other_objects_prints():
    """A ParameterDict or ParameterList holds any object, as PyTorch's; printing one that held
    a number ended in `AttributeError: 'int' object has no attribute 'shape'`.  Expected:
    PyTorch's text."""
    assert program_output(
        "import torch\nnn = torch.nn\nd = nn.ParameterDict({'a': nn.Parameter(torch.ones(2))})\n"
        "d['x'] = 3\nd['_y'] = None\nprint(d)\n"
        "print(nn.ParameterList([nn.Parameter(torch.ones(1, dtype=torch.float64)), 's']))\n"
    ) == ("ParameterDict(\n    (a): Parameter containing: [torch.FloatTensor of size 2]\n"
          "    (x): Object of type: int\n    (_y): Object of type: NoneType\n)\n"
          "ParameterList(\n    (0): Parameter containing: [torch.float64 of size 1]\n"
          "    (1): Object of type: str\n)\n")


# ---------------------------------------------------------------------- a tensor in pieces

def test_tensor_split_into_more_sections_than_a_list_may_hold_is_refused(small_limits):
    """Round 8 metered unbind, split and chunk by the item limit; torch.tensor_split(t, n)
    made n views for any n (of a tensor of three elements: most empty), a Python loop of
    bounds and then of tensors, 10 ** 9 of them minutes and gigabytes later.  Expected:
    refused past the item limit (1,000 here) before a piece is made."""
    line, _ = _error("import torch\nr = torch.tensor_split(torch.ones(3), 2000)\n")
    assert line.startswith("MemoryError: sequence too long"), line
    assert program_output("import torch\nprint(torch.tensor_split(torch.arange(5), 3), "
                          "len(torch.tensor_split(torch.ones(3), 1000)))\n"
                          ) == "(tensor([0, 1]), tensor([2, 3]), tensor([4])) 1000\n"


def test_batch_norm_running_stats_are_checked_as_pytorch():
    """batch_norm wrote its running stats with `m[...] = ...` of the channels' vector: stats
    of shape (3, 1) ended in NumPy's `ValueError: could not broadcast input array from shape
    (3,3) into shape (3,1)`, and one of the two alone was updated.  Expected: PyTorch's errors
    (PyTorch 2.13's answers)."""
    assert program_output(
        "import torch\nx = torch.arange(6.).view(2, 3)\n"
        "for m, v in ((torch.zeros(3, 1), torch.ones(1, 3)), (None, torch.ones(3))):\n"
        "    try:\n"
        "        torch.nn.functional.batch_norm(x, m, v, training=True)\n"
        "    except Exception as e:\n"
        "        print(type(e).__name__, e)\n"
    ) == ("RuntimeError TensorAccessor expected 1 dims but tensor has 2\n"
          "ValueError running_mean and running_var must either both be None or neither be "
          "None\n")




def test_type_of_a_batched_sample_is_torch_tensor():
    """Inside vmap, `type(x)` gave the engine's BatchedSample class (named "Tensor", but not
    torch.Tensor: `type(x) is torch.Tensor` was False, where PyTorch's is True), which a
    program could keep, call outside vmap (`C(3)`, a tensor every later vmap took for one of
    its samples) and subclass.  Expected: torch.Tensor, as PyTorch's type() gives; a
    program's subclass and Parameter keep their classes."""
    assert program_output(
        "import torch\nkeep = []\ndef f(x):\n    keep.append(type(x))\n    return x * 2\n"
        "torch.func.vmap(f)(torch.ones(3, 2))\n"
        "class S(torch.Tensor):\n    pass\n"
        "print(keep[0] is torch.Tensor, type(S([1.])).__name__,\n"
        "      type(torch.nn.Parameter(torch.ones(1))).__name__)\n"
    ) == "True S Parameter\n"


def test_max_pool_indices_are_read_as_saved_values():
    """A max pooling node's `_saved_result1` (and its backward's `_saved_indices`) recomputed
    the indices from the node's raw saved input: after a backward pass it ended in
    `AttributeError: 'str' object has no attribute '_data'` (the engine's release marker),
    under saved_tensors_hooks in the same error of a packed tensor.  Expected: PyTorch's
    error once freed, the indices under hooks (PyTorch 2.13's answers)."""
    assert program_output(
        "import torch\nF = torch.nn.functional\n"
        "x = torch.arange(16.).view(1, 1, 4, 4).requires_grad_()\n"
        "with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 1, lambda t: t):\n"
        "    y = F.max_pool2d(x, 2)\n    z = F.adaptive_max_pool2d(x, 3)\n"
        "print(y.grad_fn._saved_result1.tolist(), z.grad_fn._saved_result1.tolist())\n"
        "y.sum().backward()\ntry:\n    y.grad_fn._saved_result1\n"
        "except RuntimeError as e:\n    print(str(e)[:50])\n"
    ) == ("[[[[5, 7], [13, 15]]]] [[[[5, 6, 7], [9, 10, 11], [13, 14, 15]]]]\n"
          "Trying to backward through the graph a second time\n")


# ---------------------------------------------------------------------- pooling's checks

def test_a_window_of_padding_adds_no_gradient_to_the_last_element():
    """Max pooling's pad is at most half the kernel now (the table above): a dilated window
    that reaches into the padding still computes PyTorch's values and gradient."""
    assert program_output(
        "import torch\nx = torch.arange(5.).view(1, 1, 5).requires_grad_()\n"
        "y = torch.nn.functional.max_pool1d(x, 2, 1, 1, 2)\ny.sum().backward()\n"
        "print(y.tolist(), x.grad.tolist())\n"
    ) == "[[[1.0, 2.0, 3.0, 4.0, 3.0]]] [[[0.0, 1.0, 1.0, 2.0, 1.0]]]\n"


# ---------------------------------------------------------------------- random ops

def test_randperm_past_the_item_limit_is_refused(small_limits):
    """randperm swaps the elements of a Python list (its swaps a list too): n Python integers
    twice, 100 MB for a permutation of 10 ** 6 (an 8 MB tensor), that the item limit which
    meters a program's own lists did not see.  Expected: refused past the item limit (1,000
    here), as list(t) of such a tensor is."""
    line, _ = _error("import torch\nr = torch.randperm(1500)\n")
    assert line.startswith("MemoryError: sequence too long"), line
    assert program_output("import torch\nprint(sorted(torch.randperm(1000).tolist()) == "
                          "list(range(1000)))\n") == "True\n"


def test_poisson_draws_in_bounded_blocks():
    """poisson made a Python list of its rates, drew uniforms in blocks that doubled (a list
    as long as all the draws) and advanced the generator by all of them at once: 25 MB for
    50,000 rates of 9 (a 400 kB tensor), gigabytes for a tensor the element limit allows.
    Expected: blocks of at most 65,536 draws, the same values (bit for bit PyTorch's: its
    oracle tests), the generator left where PyTorch's is."""
    peak = traced_peak("import torch\nx = torch.full((50000,), 9.0)\n", "r = torch.poisson(x)\n")
    assert peak < 12_000_000, f"{peak:,} bytes"




@pytest.mark.parametrize("call", ["normal_()", "uniform_()", "exponential_()", "random_()"])
def test_a_random_fill_of_an_expanded_tensor_is_pytorchs_error(call):
    """normal_ and uniform_ wrote their draws straight into the tensor's array: of an
    expanded tensor (a read-only broadcast view) NumPy's `ValueError: assignment destination
    is read-only` came out.  Expected: PyTorch's internal-overlap error, as the other fills
    and in-place ops give."""
    line, _ = _error(f"import torch\nr = torch.ones(1).expand(5).{call}\n")
    assert line.startswith("RuntimeError: unsupported operation: more than one element of the "
                           "written-to tensor refers to a single memory location"), line


def test_a_generator_state_must_be_contiguous():
    """Generator.set_state took a non-contiguous byte tensor as it came (PyTorch 2.13: its
    error)."""
    assert _error("import torch\ng = torch.Generator()\ns = g.get_state()\n"
                  "r = g.set_state(torch.stack([s, s], 1)[:, 0])\n"
                  )[0] == "RuntimeError: RNG state must be contiguous"


def test_normal_of_a_size_has_that_shape():
    """torch.normal(mean, std, size) of two numbers gave its draws as one flat row:
    `torch.normal(0.0, 1.0, (2, 3))` was of shape [6].  Expected: the size asked for (the
    values those of a flat draw of as many, as in PyTorch)."""
    assert program_output(
        "import torch\ntorch.manual_seed(0)\na = torch.normal(0.0, 1.0, (2, 3))\n"
        "torch.manual_seed(0)\nb = torch.normal(0.0, 1.0, (6,))\n"
        "print(a.shape, torch.normal(0.0, 1.0, (2, 0)).shape, "
        "torch.equal(a.flatten(), b))\n"
    ) == "torch.Size([2, 3]) torch.Size([2, 0]) True\n"
