"""Red team, round 13: regression tests that state the SAFE behaviour (they fail until fixed).

The language wall alone (programs run in-process through a Session): the optimizers' state
written in place without a version bump (a wrong gradient, silently), the `random` facade's
arithmetic on arrays past the element limit, forged PackedSequences, functional_call's swaps."""

import sys

import pytest
from processes import program_error, program_output
from test_redteam_round11 import _assert_pytorchs, _pytorchs


pytestmark = pytest.mark.usefixtures("fresh_engine")


# ---------------------------------------------------------------------- optimizers' state

SAVED_STATE = """p = torch.ones(2, requires_grad=True)
opt = torch.optim.{optimizer}([p], lr=0.1{options})
p.grad = torch.ones(2)
opt.step()
kept = opt.state[p]["{name}"]
x = torch.ones(2, requires_grad=True)
y = (x * kept).sum()
opt.step()
y.backward()
print(x.grad)
"""
STATES = [("Adam", "", "exp_avg"), ("Adam", "", "exp_avg_sq"),
          ("Adam", ", amsgrad=True", "max_exp_avg_sq"), ("AdamW", "", "exp_avg"),
          ("SGD", ", momentum=0.9", "momentum_buffer"), ("RMSprop", "", "square_avg"),
          ("RMSprop", ", centered=True", "grad_avg"),
          ("RMSprop", ", momentum=0.5", "momentum_buffer")]


@pytest.mark.parametrize("optimizer, options, name", STATES,
                         ids=[f"{o}{opts}-{n}" for o, opts, n in STATES])
def test_a_state_tensor_a_graph_saved_is_refused_after_a_step(optimizer, options, name,
                                                              oracle):
    """The optimizers wrote their state (`opt.state[p]["exp_avg"]`, a tensor the program
    holds) through NumPy without bumping its version counter: a graph that saved it before a
    step used the stepped values in its backward pass, a wrong gradient without a word (x.grad
    0.19 for 0.1 here).  Expected: PyTorch's in-place ops bump it (`exp_avg.lerp_`), and the
    backward pass refuses the saved tensor."""
    _assert_pytorchs(oracle, SAVED_STATE.format(optimizer=optimizer, options=options,
                                                name=name))


VERSIONS = """p = torch.ones(2, requires_grad=True)
opt = torch.optim.{optimizer}([p], lr=0.1{options})
p.grad = torch.ones(2)
opt.step()
first = dict(opt.state[p])
opt.step()
print(sorted((k, v._version, opt.state[p][k] is v) for k, v in first.items()), p._version)
"""
VERSIONED = [("SGD", ", momentum=0.9"), ("SGD", ", momentum=0.9, nesterov=True"),
             ("Adam", ""), ("Adam", ", amsgrad=True, weight_decay=0.5"),
             ("AdamW", ", weight_decay=0.5"), ("RMSprop", ""),
             ("RMSprop", ", momentum=0.5, centered=True, weight_decay=0.1")]


@pytest.mark.parametrize("optimizer, options", VERSIONED,
                         ids=[f"{o}{opts}" for o, opts in VERSIONED])
def test_the_state_and_the_parameter_are_versioned_as_pytorchs(optimizer, options, oracle):
    """Each in-place op of PyTorch's step counts once (`step_t += 1`, `exp_avg_sq.mul_()
    .addcmul_()` twice, AdamW's `param.mul_` and `addcdiv_`), and the state keeps its
    tensors, the step count's too: a program holding `opt.state[p]["step"]` saw it stay at 1
    (a new tensor each step)."""
    _assert_pytorchs(oracle, VERSIONS.format(optimizer=optimizer, options=options))


LOADED_STATES = [
    # the loaded tensors are the state's own, as PyTorch's load_state_dict keeps them
    "p = torch.ones(3, requires_grad=True)\nopt = torch.optim.Adam([p], lr=0.1)\n"
    "p.grad = torch.ones(3)\nopt.step()\nsd = opt.state_dict()\nm = sd['state'][0]['exp_avg']\n"
    "opt2 = torch.optim.Adam([p], lr=0.1)\nopt2.load_state_dict(sd)\n"
    "print(opt2.state[p]['exp_avg'] is m, opt2.state[p]['step'] is sd['state'][0]['step'])\n"
    "opt2.step()\nprint(m._version, m, sd['state'][0]['step'])\n",
    # a step count that is not a whole number steps on from where it is
    "p = torch.ones(3, requires_grad=True)\nopt = torch.optim.Adam([p], lr=0.1)\n"
    "opt.state[p] = {'step': torch.tensor(1.5), 'exp_avg': torch.zeros(3), "
    "'exp_avg_sq': torch.zeros(3)}\np.grad = torch.ones(3)\nopt.step()\n"
    "print(p, opt.state[p]['step'])\n",
    "p = torch.ones(3, requires_grad=True)\nopt = torch.optim.Adam([p], lr=0.1)\n"
    "opt.state[p] = {'step': torch.tensor(3), 'exp_avg': torch.zeros(3), "
    "'exp_avg_sq': torch.zeros(3)}\np.grad = torch.ones(3)\nopt.step()\n"
    "print(p, opt.state[p]['step'])\n",
    # a state of another floating dtype is cast (a new tensor), as PyTorch casts it
    "p = torch.ones(3, requires_grad=True)\nopt = torch.optim.SGD([p], lr=0.1, momentum=0.9)\n"
    "sd = opt.state_dict()\nb = torch.ones(3, dtype=torch.float64)\n"
    "sd['state'] = {0: {'momentum_buffer': b}}\nopt.load_state_dict(sd)\n"
    "p.grad = torch.ones(3)\nopt.step()\n"
    "print(p, opt.state[p]['momentum_buffer'], opt.state[p]['momentum_buffer'] is b, b)\n",
]


@pytest.mark.parametrize("source", LOADED_STATES, ids=range(len(LOADED_STATES)))
def test_loaded_state_is_kept_as_pytorch_keeps_it(source, oracle):
    """load_state_dict made new tensors on the loaded tensors' memory (the program's `m` then
    changed at each step with its version at 0), and cut the step count to an int (1.5 made
    the bias corrections of step 2, PyTorch's of step 2.5)."""
    _assert_pytorchs(oracle, source)


# ---------------------------------------------------------------------- the random facade

RANDOM_ARITHMETIC = ["random.uniform(np.zeros((50, 1)), np.ones((1, 50)))",
                     "random.gauss(np.zeros((50, 1)), np.ones((1, 50)))",
                     "random.normalvariate(np.zeros((1, 50)), np.ones((50, 1)))",
                     "random.triangular(np.zeros((50, 1)), np.ones((1, 50)), np.ones((1, 1)))",
                     "random.uniform(a=np.zeros((50, 1)), b=np.ones((1, 50)))"]


@pytest.mark.parametrize("call", RANDOM_ARITHMETIC, ids=range(len(RANDOM_ARITHMETIC)))
def test_random_arithmetic_on_arrays_is_metered(call, small_limits):
    """`random.uniform(a, b)` is Python's `a + (b - a) * random()`: of two NumPy arrays, a
    broadcast that no check saw (uniform of (20000, 1) and (1, 20000) arrays made 4e8
    elements, 3.2 GB, past GRADCLI_MAX_ELEMENTS).  Expected: refused as NumPy's functions
    refuse it (2,500 elements past a limit of 2,000 here)."""
    line, _ = program_error(f"import random\nimport numpy as np\nr = {call}\n")
    assert line.startswith("MemoryError: array of 2500 elements exceeds the limit"), line


def test_random_arithmetic_within_the_limit_still_computes(small_limits):
    out = program_output("import random\nimport numpy as np\nrandom.seed(3)\n"
                         "a = random.uniform(2, 3)\nb = random.gauss(0, 1)\n"
                         "c = random.uniform(np.zeros((40, 1)), np.ones((1, 40)))\n"
                         "print(2 <= a < 3, type(b).__name__, c.shape, "
                         "random.expovariate(2) > 0)\n")
    assert out == "True float (40, 40) True\n"


# ---------------------------------------------------------------------- schedulers

SCHEDULED = [
    "opt = torch.optim.SGD([p], lr=1000)\n"
    "s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 'x' * 500)\n",
    "opt = torch.optim.SGD([p], lr=1)\n"
    "s = torch.optim.lr_scheduler.MultiStepLR(opt, [1] * 30, gamma=2 ** 999)\ns.step()\n",
    "opt = torch.optim.SGD([p], lr=2)\n"
    "s = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=2 ** 700)\ns.step()\ns.step()\n",
    "opt = torch.optim.SGD([p], lr=2 ** 700)\n"
    "s = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=2 ** 700)\ns.step()\n",
]


@pytest.mark.parametrize("source", SCHEDULED, ids=range(len(SCHEDULED)))
def test_schedulers_grow_values_no_more_than_the_programs_operators(source, monkeypatch):
    """The schedulers compute `base_lr * lr_lambda(epoch)`, `lr * gamma ** n` on whatever
    the program gave (as PyTorch's Python does), with Python's own operators: a lambda's
    string times an int learning rate made 500,000 characters past an item limit of 1,000
    (GRADCLI_MAX_ITEMS), a milestone repeated made `gamma ** n` of 30,000 bits, past a
    limit of 1,000 (GRADCLI_MAX_INT_BITS: `2 ** 999_999` repeated 10 ** 6 times is a
    C loop that only the SIGKILL ends).  Expected: the program's metered `*` and `**`."""
    from gradcli.lang import limits
    monkeypatch.setattr(limits, "MAX_ITEMS", 1000)
    monkeypatch.setattr(limits, "MAX_INT_BITS", 1000)
    line, _ = program_error("import torch\np = torch.ones(1, requires_grad=True)\n" + source)
    assert line.startswith(("MemoryError: sequence too long", "OverflowError: integer too "
                            "large")), line


SCHEDULES = [
    "s = torch.optim.lr_scheduler.MultiStepLR(opt, [1, 1, 3], gamma=0.5)\n"
    "t = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.9 ** e)\n"
    "for i in range(4):\n    s.step()\n    t.step()\nprint(s.get_last_lr(), t.get_last_lr())\n",
    "s = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=3)\ns.step()\ns.step()\n"
    "print(s.get_last_lr())\n",
    "s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: [e])\nprint(s.get_last_lr())\n",
    "s = torch.optim.lr_scheduler.MultiStepLR(opt, [1, 1], gamma=2)\ns.step()\n"
    "print(s.get_last_lr())\n",
    "s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: torch.tensor(0.5))\n"
    "print(s.get_last_lr())\n",
]


@pytest.mark.parametrize("source", SCHEDULES, ids=range(len(SCHEDULES)))
def test_schedules_within_the_limits_are_pytorchs(source, oracle):
    """(stepped before the optimizer: PyTorch's warning, on its standard error)"""
    from gradcli.optim.lr_scheduler import STEP_ORDER_WARNING
    _assert_pytorchs(oracle, "p = torch.ones(1, requires_grad=True)\n"
                             "opt = torch.optim.SGD([p], lr=2)\n" + source,
                     on_stderr=[STEP_ORDER_WARNING])


# ---------------------------------------------------------------------- pieces and steps

def test_tensor_split_at_indices_past_the_item_limit_is_refused(small_limits):
    """Round 9 metered tensor_split's sections; at indices (a list, or a tensor of them:
    `tolist()` first) it made a view per index, a Python object each, 1,501 of them past an
    item limit of 1,000 here (a tensor of 10 ** 8 indices, 800 MB, made 10 ** 8 views).
    Expected: refused before a piece is made, as the sections are."""
    for indices in ("torch.zeros(1500, dtype=torch.long)", "[0] * 1500"):
        line, _ = program_error(f"import torch\nr = torch.tensor_split(torch.ones(3), "
                                f"{indices})\n")
        assert line.startswith("MemoryError: sequence too long"), line
    assert program_output("import torch\nprint(len(torch.tensor_split(torch.ones(3), "
                          "[1] * 999)), torch.tensor_split(torch.arange(5), "
                          "torch.tensor([1, 3])))\n") == \
        "1000 (tensor([0]), tensor([1, 2]), tensor([3, 4]))\n"


FORGED_PACKS = [
    # batch sizes of no rows: a step each of the recurrence, each a tensor
    "torch.nn.RNN(1, 2)(PackedSequence(torch.zeros(0, 1), torch.zeros(1500, dtype=torch.long)))",
    "pad_packed_sequence(PackedSequence(torch.zeros(0, 1), torch.zeros(1500, dtype=torch.long)))",
]


@pytest.mark.parametrize("source", FORGED_PACKS, ids=range(len(FORGED_PACKS)))
def test_forged_packed_sequences_are_metered(source, small_limits):
    """A PackedSequence a program makes carries any batch_sizes: pad_packed_sequence made a
    Python list of batch_sizes[0] lengths (`[0] * 10 ** 9`, 8 GB, for data of no elements),
    and the layers and pad_packed_sequence a Python step per batch size (10 ** 8 zeros: as
    many tensors).  Expected: the lengths counted as the tensor they become, the steps as
    pieces (list(t)'s item limit)."""
    line, _ = program_error("import torch\nfrom torch.nn.utils.rnn import PackedSequence, "
                            f"pad_packed_sequence\nr = {source}\n")
    assert line.startswith("MemoryError: sequence too long"), line


PACKS = [
    "print(pack_padded_sequence(torch.arange(15.).view(5, 3, 1), [5, 3, 1]).batch_sizes)",
    "print(pack_padded_sequence(torch.arange(15.).view(3, 5, 1), torch.tensor([1, 3, 2]), "
    "batch_first=True, enforce_sorted=False))",
    "print(pack_padded_sequence(torch.zeros(3, 2, 1), [2, 3]))",
    "print(pack_padded_sequence(torch.zeros(3, 2, 1), [4, 2]))",
    "print(pad_packed_sequence(PackedSequence(torch.arange(6.).view(6, 1), "
    "torch.tensor([3, 3]))))",
]


@pytest.mark.parametrize("source", PACKS, ids=range(len(PACKS)))
def test_packing_computes_pytorchs_batch_sizes(source, oracle):
    _assert_pytorchs(oracle, "from torch.nn.utils.rnn import PackedSequence, "
                             "pack_padded_sequence, pad_packed_sequence\n" + source + "\n")


# ---------------------------------------------------------------------- functional_call

SWAPS = ['{"weight": 5}', '{"weight": [1.]}', '{"forward": torch.ones(1)}',
         '{"training": torch.ones(1)}', '{"eval": torch.ones(1)}',
         '{"in_features": torch.ones(1)}', '{"foo": torch.ones(1)}', '{"bias": None}',
         '{"weight": torch.ones(1, 1), "bias": torch.zeros(1)}']


@pytest.mark.parametrize("swap", SWAPS, ids=range(len(SWAPS)))
def test_functional_call_swaps_tensors_only(swap, oracle):
    """functional_call set whatever it was given in place of whatever the module had: a
    number as its weight, a program's function as its `forward` (called then by the engine),
    a tensor in place of `training` or of a method (`forward`).  Expected: PyTorch's swap_tensor, which
    takes a tensor (or None) in place of a tensor, a None or nothing."""
    _assert_pytorchs(oracle, "torch.manual_seed(0)\nm = torch.nn.Linear(1, 1)\n"
                             f"r = torch.func.functional_call(m, {swap}, (torch.ones(1),))\n"
                             "print(r, m.weight, m.training)\n")


# ---------------------------------------------------------------------- wrong values

WRONG_VALUES = [
    # a Python int compared with an integer tensor is cast to its dtype, wrapping
    "x = torch.tensor([2 ** 64 - 1, 5], dtype=torch.uint64)\nprint(x == -1, x != -1, x.eq(-1))",
    "print(torch.tensor([255], dtype=torch.uint8) == -1, torch.tensor([255], dtype=torch.uint8)"
    " > -1, torch.tensor([-56], dtype=torch.int8) == 200)",
    # sum and prod with a dtype cast the input first (int64 sums wrapped, then were cast)
    "print(torch.tensor([2 ** 62] * 3).sum(dtype=torch.float64), torch.tensor([2 ** 62] * 3)"
    ".prod(dtype=torch.float64))",
    "print(torch.tensor([2 ** 64 - 1, 7], dtype=torch.uint64).sum(dtype=torch.float32), "
    "torch.tensor([[1, 2], [3, 4]]).sum(1, dtype=torch.float32))",
    # arange: no kernel for the wide unsigned types and bool (it made [0, 0] of 2 ** 64 - 3),
    # int64's bounds and step read as int64
    "print(torch.arange(2 ** 64 - 3, 2 ** 64 - 1, dtype=torch.uint64))",
    "print(torch.arange(5, dtype=torch.uint32))", "print(torch.arange(3, dtype=torch.bool))",
    "print(torch.arange(-0.5, 3, dtype=torch.int64), "
    "torch.arange(1.9, 5.2, 1.1, dtype=torch.int64), "
    "torch.arange(5, 0.5, -1.5, dtype=torch.int64), torch.arange(2.7, dtype=torch.int64))",
    "print(torch.arange(0, 3, 0.7, dtype=torch.int64))",
    "print(torch.arange(0, 10 ** 19, 10 ** 18))",
    # tensor_split's negative indices count from the end (a piece [0] where PyTorch's is empty)
    "print(torch.tensor_split(torch.arange(5), [7, -2, 1]), torch.tensor_split(torch.arange(5), "
    "torch.tensor([-1])))",
    "print(torch.tensor_split(torch.arange(5), torch.tensor([1.5])))",
    "print(torch.tensor_split(torch.arange(5), torch.tensor([[1, 3]])))",
    "print(torch.tensor_split(torch.arange(5), range(1, 3)))",
    # a PackedSequence's batch sizes are a 1-D int64 tensor
    "from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence\n"
    "print(pad_packed_sequence(PackedSequence(torch.arange(6.).view(6, 1), "
    "torch.tensor([3., 3.]))))",
    "from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence\n"
    "print(pad_packed_sequence(PackedSequence(torch.arange(6.).view(6, 1), "
    "torch.tensor([], dtype=torch.long))))",
]


@pytest.mark.parametrize("source", WRONG_VALUES, ids=range(len(WRONG_VALUES)))
def test_values_pytorch_computes_otherwise_or_refuses(source, oracle):
    """Answers that differed from PyTorch's without a word: `uint64_tensor == -1` False
    (NumPy compares the values; PyTorch casts -1 to the dtype), sums and products with a
    dtype computed in the input's and cast after (`[2 ** 62] * 3` summed to -4.6e18 as
    float64), arange of uint64 (2 ** 64 - 3 onward: [0, 0]) and of fractions as int64,
    tensor_split at negative indices, float batch sizes taken as steps."""
    _assert_pytorchs(oracle, source + "\n")


CLOSED_FORMS = ["ExponentialLR(opt, 0.5)", "StepLR(opt, 2, 0.5)",
                "MultiStepLR(opt, [3, 1, 3, 7], 0.5)", "LambdaLR(opt, lambda e: e + 1)"]


@pytest.mark.parametrize("scheduler", CLOSED_FORMS)
def test_a_scheduler_stepped_to_an_epoch_uses_its_closed_form(scheduler, oracle):
    """`scheduler.step(5)` (deprecated, with PyTorch's warning) scaled the current rate once,
    as `step()` does (ExponentialLR: 0.05 where PyTorch's closed form gives 0.1 * 0.5 ** 5)."""
    source = ("p = torch.ones(1, requires_grad=True)\nopt = torch.optim.SGD([p], lr=0.1)\n"
              f"s = torch.optim.lr_scheduler.{scheduler}\ns.step(4)\nprint(s.get_last_lr())\n"
              "s.step()\nprint(s.get_last_lr())\ns.step(0)\nprint(s.get_last_lr())\n")
    ours = [line for line in program_output("import torch\n" + source).splitlines()
            if not line.startswith("UserWarning: ")]   # (PyTorch's go to standard error)
    assert ours == _pytorchs(oracle, source)[1].splitlines()


def test_saving_the_programs_builtins_keeps_them():
    """torch.save of `print` (the session's method) copied the session: "cannot pickle
    'Session' object", and of an op "cannot pickle 'Op' object"; pickle keeps a function by
    its name, and so does the copy now."""
    out = program_output("import torch\ntorch.save([print, torch.exp, max, exp, range], 'f')\n"
                         "l = torch.load('f', weights_only=False)\n"
                         "print(l[0] is print, l[1] is torch.exp, l[2] is max, l[3] is exp, "
                         "l[4] is range)\nx = torch.ones(1)\nx.hook = print\ntorch.save(x, 'g')\n"
                         "print(torch.load('g', weights_only=False).hook is print)\n")
    assert out == "True True True True True\nTrue\n"


# ---------------------------------------------------------------------- the wall alone

LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux walls")


def _ended(attack, timeout=1):
    """(how attack() in an evaluator was ended, how long it took): issue 17's findings 3 and
    4 with the language's checks out of the way, as a program that got past them runs."""
    import time
    from gradcli.kernel.process import EvaluatorGone, run_task
    start = time.monotonic()
    with pytest.raises(EvaluatorGone) as gone:
        run_task(attack, timeout=timeout)
    return gone.value.kind, gone.value.message, time.monotonic() - start


def _deaf():
    """Block every signal the evaluator could be told to stop by (Ctrl-C, the alarm, the CPU
    limit's SIGXCPU)."""
    import signal
    signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())


@LINUX
def test_a_gil_holding_loop_with_every_signal_blocked_ends_at_the_timeout():
    def attack():
        _deaf()
        t = ()
        for _ in range(100):
            t = (t, t)
        hash(t)   # (2 ** 100 steps in C, holding the GIL)
    kind, _, took = _ended(attack)
    assert kind == "timeout" and took < 1 + 2


@LINUX
def test_an_evaluator_that_stops_itself_ends_at_the_timeout():
    def attack():
        import signal
        _deaf()
        signal.raise_signal(signal.SIGSTOP)   # (tgkill of itself: the wall allows it)
    kind, _, took = _ended(attack)
    assert kind == "timeout" and took < 1 + 2


@LINUX
def test_c_recursion_with_the_language_down_is_one_crash():
    def attack():
        import sys
        sys.setrecursionlimit(10 ** 8)
        t = ()
        for _ in range(10 ** 6):
            t = (t,)
        hash(t)
    kind, message, _ = _ended(attack, timeout=30)
    assert (kind, message) == ("crash", "the program crashed the evaluator (SIGSEGV)")
