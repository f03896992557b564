"""torch.utils.data in programs: what PyTorch does is in the oracle transcripts
(tests/oracle/names26_sessions.py: pytorch_code_data); here what is gradcli's own: no worker
processes, the sandbox's check of the callables a program hands a DataLoader, and the item limit
on the batches and permutations a program asks for."""

import pytest

import gradcli
from gradcli.data import DataLoader, TensorDataset, _item
from gradcli.engine import callables
from gradcli.lang.errors import ProgramError
from gradcli.lang.session import Session

SETUP = ("import torch\nimport numpy as np\nfrom torch.utils.data import DataLoader, "
         "TensorDataset, random_split\nds = TensorDataset(torch.arange(6.))\n")


def error(source):
    with pytest.raises(ProgramError) as info:
        Session().run(SETUP + source)
    return info.value.headline()


def test_worker_processes_are_refused_in_one_line():
    assert error("DataLoader(ds, num_workers=2)\n") == (
        "ValueError: DataLoader(num_workers > 0): worker processes are not supported in "
        "gradcli programs")


def test_collate_fn_is_checked_as_a_call_of_it_is():
    assert "numpy.ndarray() is not available in gradcli programs" in \
        error("list(DataLoader(ds, batch_size=2, collate_fn=np.ndarray))\n")


def test_batches_and_permutations_are_held_to_the_limits():
    assert error("next(iter(DataLoader(range(10 ** 12), batch_size=10 ** 9)))\n").startswith(
        "MemoryError")
    for source in ["next(iter(DataLoader(range(10 ** 12), shuffle=True)))\n",
                   "random_split(range(10 ** 12), [0.5, 0.5])\n"]:
        assert error(source).startswith(("MemoryError: sequence too long", "RuntimeError: "
                                         "gradcli draws permutations of fewer")), source
    # (a batch is no longer than the dataset: a huge batch_size of a small one is fine)
    assert error("print(len(next(iter(DataLoader(ds, batch_size=10 ** 12)))[0]))\n1 / 0\n") \
        .startswith("ZeroDivisionError")


def test_a_datasets_getitem_goes_through_the_check(monkeypatch):
    seen = []

    def check(func):
        seen.append(func)
        return func
    monkeypatch.setattr(callables, "CHECK", [check])

    class Squares:
        def __getitem__(self, i):
            return i * i

        def __len__(self):
            return 4
    assert [b.tolist() for b in DataLoader(Squares(), batch_size=3)] == [[0, 1, 4], [9]]
    assert seen.count(Squares.__getitem__) == 4
    assert _item([5, 6], 1) == 6 and seen[-1] is list.__getitem__
    loader = DataLoader(TensorDataset(gradcli.arange(4.)), batch_size=2,
                        collate_fn=lambda b: len(b))
    assert list(loader) == [2, 2] and seen[-1] is not list.__getitem__
