"""torch.Generator, torch.default_generator and the `generator=` argument of the random
functions: the same draws as PyTorch's CPU generators, and the same 5056-byte states
(get_state / set_state, torch.get_rng_state / set_rng_state), checked against torch."""

import pytest

import gradcli

from processes import program_error


def draws(torch, seed):
    """What a program sees of its own generator and of the default one."""
    g = torch.Generator().manual_seed(seed)
    out = {"initial": g.initial_seed(), "device": str(g.device)}
    out["rand"] = torch.rand(3, generator=g).tolist()
    out["randn_small"] = torch.randn(3, generator=g).tolist()  # leaves a cached normal
    out["state_cached"] = g.get_state().tolist()
    out["randn_cached"] = torch.randn(1, generator=g).tolist()
    out["randn_f32"] = torch.randn(20, generator=g).tolist()   # the AVX2 Box-Muller
    out["randn_f64"] = torch.randn(17, dtype=torch.float64, generator=g).tolist()
    out["randint"] = torch.randint(0, 10, (5,), generator=g).tolist()
    out["randint_wide"] = torch.randint(0, 2 ** 40, (3,), generator=g).tolist()
    out["rand_like"] = torch.rand_like(torch.ones(2), generator=g).tolist()
    out["randn_like"] = torch.randn_like(torch.ones(2, dtype=torch.float64), generator=g).tolist()
    out["uniform_"] = torch.empty(3).uniform_(-1, 2, generator=g).tolist()
    out["normal_"] = torch.empty(3).normal_(1, 3, generator=g).tolist()
    out["kaiming"] = torch.nn.init.kaiming_uniform_(torch.empty(2, 3), generator=g).tolist()
    out["xavier"] = torch.nn.init.xavier_normal_(torch.empty(2, 3), generator=g).tolist()
    out["state"] = g.get_state().tolist()
    torch.manual_seed(seed)
    out["default_untouched"] = torch.rand(2).tolist()  # the program's generator is its own
    return out


@pytest.mark.parametrize("seed", [0, 3, 2 ** 40 + 7, -1])
def test_a_generator_draws_and_holds_what_pytorch_s_does(seed, oracle):
    assert draws(gradcli, seed) == oracle(lambda torch: draws(torch, seed))


def replay(torch):
    """States saved and restored: fresh, part-way through the stream, past a refill of the 624
    words, with a cached normal; the default generator's by the module functions."""
    g = torch.Generator()
    out = {"fresh": g.get_state().tolist()}
    saved = [g.get_state()]
    for n in (1, 623, 1, 700):
        torch.rand(n, generator=g)
        saved.append(g.get_state())
    torch.randn(1, generator=g)
    saved.append(g.get_state())
    out["states"] = [s.tolist() for s in saved]
    other = torch.Generator()
    out["again"] = []
    for s in saved:
        other.set_state(s)
        out["again"].append(torch.randn(5, generator=other).tolist()
                            + torch.rand(2, generator=other).tolist())
    torch.manual_seed(11)
    torch.rand(5)
    state = torch.get_rng_state()
    first = torch.randn(30).tolist()
    torch.set_rng_state(state)
    out["default_replayed"] = first == torch.randn(30).tolist()
    out["default_state"] = state.tolist()
    return out


def test_states_are_pytorch_s_bytes_and_restore_its_draws(oracle):
    ours = replay(gradcli)
    assert ours["default_replayed"]
    assert ours == oracle(replay)


def test_a_state_from_pytorch_restores_in_gradcli(oracle):
    """The bytes PyTorch's get_state gives, handed to gradcli's set_state (and back)."""
    def state_and_draws(torch):
        g = torch.Generator().manual_seed(5)
        torch.rand(100, generator=g)
        torch.randn(3, generator=g)
        return g.get_state().tolist(), torch.randn(4, generator=g).tolist()
    state, expected = oracle(state_and_draws)
    g = gradcli.Generator().set_state(gradcli.tensor(state, dtype=gradcli.uint8))
    assert g.get_state().tolist() == state
    assert gradcli.randn(4, generator=g).tolist() == expected


def test_the_default_generator_is_torch_manual_seed_s():
    assert gradcli.manual_seed(4) is gradcli.default_generator
    assert gradcli.initial_seed() == 4
    assert gradcli.manual_seed(1.5).initial_seed() == 1     # torch.manual_seed takes int(seed)
    assert repr(gradcli.Generator()).startswith("<torch._C.Generator object at 0x")


@pytest.mark.parametrize("source, expected", [
    ("torch.randn(2, generator=3)",
     "TypeError: randn(): argument 'generator' must be torch.Generator, not int"),
    ("torch.rand(2, generator=torch.ones(1))",
     "TypeError: rand(): argument 'generator' must be torch.Generator, not Tensor"),
    ("torch.Generator().manual_seed(1.5)",
     "RuntimeError: manual_seed expected a long, but got float"),
    ("torch.Generator().manual_seed(True)",
     "RuntimeError: manual_seed expected a long, but got bool"),
    ("torch.Generator().manual_seed(2 ** 64)", "ValueError: Overflow when unpacking long long"),
    ("torch.manual_seed(-2 ** 63 - 1)", "ValueError: Overflow when unpacking long long"),
    ("torch.Generator().set_state(torch.zeros(3, dtype=torch.uint8))",
     "RuntimeError: Expected a CPUGeneratorImplState of size 5056 but found the input RNG "
     "state size to be 3"),
    ("torch.Generator().set_state(torch.zeros(5056))",
     "TypeError: RNG state must be a torch.ByteTensor"),
    ("torch.set_rng_state(5)", "TypeError: expected a torch.ByteTensor, but got int"),
    ("torch.Generator().set_state(torch.zeros(5056, dtype=torch.uint8))",
     "RuntimeError: Invalid mt19937 state"),
    ("torch.Generator('cuda')", "RuntimeError: gradcli runs on the CPU only: no device 'cuda'"),
])
def test_misuse_is_pytorch_s_error(source, expected):
    assert program_error("import torch\n" + source)[0] == expected


@pytest.mark.parametrize("attribute", ["_uniform", "_seed", "_bits", "uniform", "random32"])
def test_a_program_reaches_only_pytorch_s_generator_api(attribute):
    """The draws themselves (raw NumPy arrays of any size) stay the engine's."""
    error = program_error(f"import torch\ntorch.Generator().{attribute}")[0]
    assert error.startswith(("AttributeError", "NameError", "SyntaxError")), error
