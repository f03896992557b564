"""A creation function's arguments PyTorch's parser refuses get its TypeError: sizes ("argument
'size' (position 1) must be tuple of ints, not str", "failed to unpack the object at pos 2",
"but found element of type bool at pos 0", by keyword "must be tuple of ints, not int"), a
fill value that is no Number, an `input` that is no Tensor (the *_like functions), arange's
end and eye's n; what it takes (a bool after the first size, an integer tensor) it takes."""

import numpy as np
import pytest

import gradcli

CALLS = """
torch.zeros('a')
torch.zeros((2,'a'))
torch.zeros([2,2.])
torch.zeros(2,2.)
torch.zeros(True)
torch.zeros((True,))
torch.zeros(2, True)
torch.zeros(size='a')
torch.zeros(size=(2,'a'))
torch.zeros(None)
torch.zeros(2, None)
torch.zeros(torch.tensor(2))
torch.zeros(torch.tensor(2.))
torch.zeros(2, torch.tensor(2.))
torch.zeros(())
torch.zeros(('a',2))
torch.zeros((2.,))
torch.zeros([])
torch.zeros(2, np.int64(2))
torch.zeros(np.int64(2))
torch.zeros((2, True))
torch.zeros(size=(True,))
torch.zeros(size=2)
torch.zeros(torch.Size([2]))
torch.zeros(2, (2,))
torch.zeros(2, torch.tensor(3))
torch.zeros((torch.tensor(2.),))
torch.ones(2.)
torch.ones(-1)
torch.ones(2, 3, dtype=torch.float64)
torch.ones((2, 3))
torch.randn('a')
torch.randn(2.5)
torch.rand(2,'a')
torch.rand(size=(2, 'a'))
torch.empty('a')
torch.empty(2, 'a')
torch.full(2, 1.)
torch.full((2,'a'), 1.)
torch.full((2,), 'a')
torch.full('a', 1)
torch.full((2,), True)
torch.full((2,), torch.tensor(1.))
torch.full([2, 3], 1)
torch.arange('a')
torch.arange(None)
torch.arange(5)
torch.arange(2.5)
torch.arange(torch.tensor(3))
torch.eye('a')
torch.eye(2.)
torch.eye(True)
torch.eye(3)
torch.eye(np.int64(2))
torch.zeros_like('a')
torch.zeros_like(torch.ones(2))
torch.ones_like([1])
torch.empty_like(1)
torch.full_like('a', 1)
torch.full_like(torch.ones(1), 'a')
torch.full_like(torch.ones(2), 3)
torch.rand_like(1)
torch.randn_like('a')
""".strip().splitlines()


def _outcome(lib, call):
    try:
        result = eval(call, {"torch": lib, "np": np})
    except Exception as e:
        return [type(e).__name__, str(e)]
    return ["value", list(result.shape), str(result.dtype)]


@pytest.mark.parametrize("call", CALLS)
def test_creation_argument_errors_are_pytorchs(call, oracle):
    assert _outcome(gradcli, call) == oracle(lambda torch: _outcome(torch, call))
