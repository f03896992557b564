"""Special methods a program's classes may define (issue 20: a map-style Dataset's __len__ and
__getitem__, an iterator's __iter__ and __next__, __contains__, __call__), computed as Python
computes them; the others refused by name; none over what the engine reads (a Tensor's, a
Module's __call__); and no NumPy array made of such an object, which NumPy would build by
calling it in C, past the element limit."""

import pytest

PROGRAMS = {
    "a sequence": """\
class Squares:
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i * i
    def __contains__(self, v):
        return v == 4
    def __call__(self, k):
        return self[k] * 10
s = Squares(4)
print(len(s), s[2], 4 in s, 5 in s, s(3))
print(list(s), sum(s), sorted(s, reverse=True), [x + 1 for x in s])
""",
    "an iterator": """\
class Count:
    def __init__(self, stop):
        self.i, self.stop = 0, stop
    def __iter__(self):
        return self
    def __next__(self):
        if self.i >= self.stop:
            raise StopIteration
        self.i += 1
        return self.i
print([c for c in Count(3)], max(Count(5)), list(zip(Count(2), Count(3))))
""",
    "Python's errors for what they return": """\
class Bad:
    def __len__(self):
        return -1
try:
    len(Bad())
except ValueError as e:
    print(e)
class NotIter:
    def __iter__(self):
        return 3
try:
    iter(NotIter())
except TypeError as e:
    print(e)
""",
}


@pytest.mark.parametrize("source", PROGRAMS.values(), ids=list(PROGRAMS))
def test_special_methods_compute_as_python(run, python_prints, source):
    assert run(source) == python_prints(source)


def test_a_module_indexed_by_its_own_getitem(run):
    out = run("import torch\nclass Stack(torch.nn.Module):\n    def __init__(self):\n"
              "        super().__init__()\n"
              "        self.layers = torch.nn.ModuleList([torch.nn.Linear(2, 2) for _ in "
              "range(3)])\n    def __len__(self):\n        return len(self.layers)\n"
              "    def __getitem__(self, i):\n        return self.layers[i]\n"
              "s = Stack()\nprint(len(s), s[1])\n")
    assert out == "3 Linear(in_features=2, out_features=2, bias=True)\n"


@pytest.mark.parametrize("source, message", [
    ("class A:\n    def __eq__(self, o):\n        return True\n",
     "NameError: names starting with '__' are not allowed: '__eq__' (a class may define "
     "__init__, __call__, __contains__, __getitem__, __iter__, __len__, __next__)"),
    ("class A:\n    def __repr__(self):\n        return 'a'\n",
     "NameError: names starting with '__' are not allowed: '__repr__'"),
    ("class A:\n    def __exit__(self, *a):\n        return True\n",
     "NameError: names starting with '__' are not allowed: '__exit__'"),
    ("def __len__(self):\n    return 1\n",
     "NameError: names starting with '__' are not allowed: '__len__'"),
    ("import torch\nclass T(torch.Tensor):\n    def __getitem__(self, i):\n        return 0\n",
     "TypeError: class T cannot redefine '__getitem__' of torch.Tensor in gradcli programs"),
    ("import torch\nclass M(torch.nn.Module):\n    def __call__(self, x):\n        return x\n",
     "TypeError: class M cannot redefine '__call__' of Module in gradcli programs"),
    ("import torch\nclass L(torch.nn.ModuleList):\n    def __len__(self):\n        return 0\n",
     "TypeError: class L cannot redefine '__len__' of ModuleList in gradcli programs"),
    ("class A:\n    def __len__(self):\n        return 1\nA().__len__\n",
     "AttributeError: attributes starting with '_' are not allowed: '__len__'"),
])
def test_what_a_class_may_not_define(run, source, message):
    assert run.error(source).headline().startswith(message)


@pytest.mark.parametrize("use", ["np.array(A())", "np.add(A(), 1)", "np.array([A(), A()])",
                                 "np.asarray(A())", "np.stack([A()])"])
def test_numpy_makes_no_array_of_a_programs_sequence(run, use):
    # (20,000 rows of 20,000 elements: NumPy would take 3.2 GB, calling __getitem__ in C)
    error = run.error("import numpy as np\nclass A:\n    def __len__(self):\n"
                      "        return 20000\n    def __getitem__(self, i):\n"
                      "        if i >= 20000:\n            raise IndexError\n"
                      "        return np.ones(20000)\n" + use + "\n")
    assert error.headline() == ("TypeError: NumPy makes no array of A objects in gradcli "
                                "programs (make a list first: list(x))")


def test_a_subclass_of_a_programs_sequence_is_refused_too(run):
    error = run.error("import numpy as np\nclass A:\n    def __getitem__(self, i):\n"
                      "        return np.ones(3)\nclass B(A):\n    pass\nnp.array(B())\n")
    assert error.headline().startswith("TypeError: NumPy makes no array of B objects")
