"""`import random` in programs (d2l.ai's data iterator shuffles with it, "Learning PyTorch with
examples" draws a depth with it): Python's generator, seeded as Python seeds it, with only the
functions whose work its arguments bound."""

import io
import random

import pytest

from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session


def _run(source):
    out = io.StringIO()
    Session(out=out).run(source)
    return out.getvalue()


def test_a_seeded_program_draws_what_python_draws():
    source = ("import random\nfrom random import shuffle\nrandom.seed(3)\n"
              "idx = list(range(8))\nshuffle(idx)\n"
              "print(idx, random.randint(1, 6), random.choice('abc'), random.sample(range(9), 3),"
              " random.uniform(0, 1), random.gauss(0, 1), random.randrange(0, 10, 2))\n")
    expected = io.StringIO()
    random.seed(3)
    idx = list(range(8))
    random.shuffle(idx)
    print(idx, random.randint(1, 6), random.choice('abc'), random.sample(range(9), 3),
          random.uniform(0, 1), random.gauss(0, 1), random.randrange(0, 10, 2), file=expected)
    assert _run(source) == expected.getvalue()


@pytest.mark.parametrize("name", ["getrandbits", "randbytes", "choices", "getstate",
                                  "setstate", "Random", "SystemRandom"])
def test_functions_of_unbounded_work_or_the_state_are_not_there(name):
    with pytest.raises(ProgramError, match=f"AttributeError: module 'random' has no attribute "
                                           f"'{name}'"):
        _run(f"import random\nrandom.{name}")


def test_a_sample_is_metered():
    with pytest.raises(ProgramError, match="^MemoryError"):
        _run("import random\nrandom.sample(range(10 ** 12), 10 ** 11)")
    with pytest.raises(ProgramError, match="not supported in gradcli programs"):
        _run("import random\nrandom.sample([1, 2], 2, counts=[1, 1])")
