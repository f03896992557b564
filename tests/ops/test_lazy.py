"""The op modules that load at first use (gradcli.ops.lazy): the manifest says what the modules
declare, a fresh process loads none of them until a program reaches one of their names, and
the table, Tensor and the namespaces are then what loading every module at import gives.

(The rest of the suite runs with every module loaded: tests/conftest.py.  These tests start
fresh interpreters.)"""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gradcli.ops import lazy
from gradcli.ops.entries import OPS, Pending

ROOT = Path(__file__).resolve().parents[2]


def run_python(code, eager=False, check=True):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    env.pop("GRADCLI_LAZY_OPS", None)
    if eager:
        env["GRADCLI_LAZY_OPS"] = "0"
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=120)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def test_the_manifest_is_what_the_modules_declare():
    made = run_python("""
        import sys
        from gradcli.ops import lazy
        sys.stdout.write(lazy.manifest_text(lazy.COLLECTED))
    """, eager=True).stdout
    assert made == Path(lazy.MANIFEST_PATH).read_text(encoding="utf-8"), \
        f"gradcli/ops/manifest.py is out of date: run `{lazy.REGENERATE}`"


def test_the_manifest_generator_refuses_to_run_on_the_lazy_table():
    done = run_python("import runpy; runpy.run_module('gradcli.ops.make_manifest', "
                      "run_name='__main__')", check=False)
    assert done.returncode == 1
    assert done.stderr.strip() == f"run it as `{lazy.REGENERATE}`"


FINGERPRINT = """
    import json, sys
    from gradcli.ops import lazy, PUBLIC
    from gradcli.ops.registry import ALIASES, OPS
    from gradcli.ops.derivatives import HELPERS
    from gradcli.engine.tensor import Tensor
    lazy.load_all()
    from gradcli import api
    print(json.dumps({
        "ops": {n: type(op).__qualname__ for n, op in OPS.items()},
        "aliases": ALIASES,
        "helpers": sorted(HELPERS),
        "tensor": sorted(Tensor.__dict__),
        "public": sorted(PUBLIC),
        "namespace": all(getattr(api, n) is op for n, op in PUBLIC.items()
                         if n not in api._INPLACE_FUNCTIONS),
        # (an op named as its module, matmul: the package's attribute is the op)
        "package": {m: type(getattr(sys.modules["gradcli.ops"], m)).__name__
                    for m in lazy.LAZY_MODULES},
    }))
"""


def test_loading_every_module_gives_the_table_an_eager_import_gives():
    lazily = json.loads(run_python(FINGERPRINT).stdout)
    eagerly = json.loads(run_python(FINGERPRINT, eager=True).stdout)
    assert lazily == eagerly
    assert lazily["namespace"]
    assert lazily["package"]["matmul"] != "module" and lazily["package"]["sorting"] == "module"


def run_program(program, then=""):
    """Run a program in a fresh process's Session; then: Python run after it."""
    return run_python("import sys\nfrom gradcli.lang.session import Session\n"
                      f"Session().run({textwrap.dedent(program)!r})\n"
                      + textwrap.dedent(then)).stdout.splitlines()


def test_a_fresh_process_runs_a_program_without_loading_them():
    out = run_program("""
        x = tensor(3., requires_grad=True)
        z = (2 * x) ** 3
        z.backward()
        print(x.grad)
    """, then="""
        from gradcli.ops.lazy import LAZY_MODULES
        print([m for m in LAZY_MODULES if "gradcli.ops." + m in sys.modules])
    """)
    assert out == ["tensor(216.)", "[]"]


# one way in per module, each a different path: a bare name, torch.<name>, a method, an
# operator, an in-place method, torch.linalg, torch.nn.functional
FIRST_USES = {
    "reductions": "y = x.mean()",
    "backward_ops": "y = x.tanh()",  # (its VJP: tanh_backward)
    "indexing": "y = x.reshape(1)[0]",
    "join_split": "y = cat([x.reshape(1), x.reshape(1)]).sum()",
    "slicing": "y = torch.flip(x.reshape(1), [0]).sum()",
    "gather": "y = x.reshape(1).index_select(0, tensor([0])).sum()",
    "elementwise": "y = sin(x)",
    "matmul": "y = (x.reshape(1, 1) @ x.reshape(1, 1)).sum()",
    "compare": "y = x * ((x > 0) & (x < 5))",
    "sorting": "y = x.reshape(1, 1).sort(0).values.sum()",
    "extra": "y = torch.addcmul(x, x, x)",
    "activations": "y = hardshrink(x)",
    "linalg": "y = torch.linalg.det(x.reshape(1, 1))",
    "products": "y = torch.inner(x.reshape(1), x.reshape(1))",
    "more_reductions": "y = x.reshape(1).logcumsumexp(0).sum()",
    "decompositions": "y = x.reshape(1, 1).matrix_power(2).sum()",
    "inplace_shape": "y = x * 1\ny.unsqueeze_(0)\ny = y.sum()",
    "linalg_extra": "y = torch.linalg.matrix_norm(x.reshape(1, 1))",
    "scatter": "y = x.reshape(1).index_add(0, tensor([0]), x.reshape(1)).sum()",
    "dropout": "y = torch.nn.functional.dropout(x, 0.0)",
    "layers": "y = x.reshape(1).repeat_interleave(2).sum()",
    "normalization": "y = torch.layer_norm(x.reshape(1, 1), [1]).sum()",
    "convolution": "y = torch.conv1d(x.reshape(1, 1, 1), x.reshape(1, 1, 1)).sum()",
    "image_blocks": "y = torch.pixel_shuffle(x.reshape(1, 1, 1, 1), 1).sum()",
    "pooling": "y = torch.nn.functional.max_pool1d(x.reshape(1, 1, 1), 1).sum()",
    "adaptive_pooling": "y = torch.adaptive_avg_pool1d(x.reshape(1, 1, 1), 2).sum()",
    "unpooling": "y = torch.nn.functional.max_unpool1d(x.reshape(1, 1, 1), tensor([[[0]]]), 1)"
                 ".sum()",
    "upsample": "y = torch.nn.functional.interpolate(x.reshape(1, 1, 1), scale_factor=2).sum()",
    "distributions": "y = x * torch.normal(tensor(0.), 0.)",
}


def test_every_lazy_module_has_a_first_use():
    assert sorted(FIRST_USES) == sorted(lazy.LAZY_MODULES)


@pytest.mark.parametrize("module", sorted(FIRST_USES))
def test_a_program_loads_a_module_at_its_first_use(module):
    out = run_python(f"""
        import sys
        from gradcli.lang.session import Session
        s = Session()
        s.run("import torch\\nx = tensor(3., requires_grad=True)")
        before = "gradcli.ops.{module}" in sys.modules
        s.run({FIRST_USES[module]!r} + "\\ny.backward()\\nprint(x.grad is not None)")
        print(before, "gradcli.ops.{module}" in sys.modules)
    """).stdout.splitlines()
    assert out == ["True", "False True"]


def test_what_a_program_sees_of_an_op_is_the_same_before_and_after_its_module_loads():
    # the sandbox's view of a table entry (an opaque builtin, no attribute) does not depend on
    # whether its module has loaded; scatter_reduce is of a class of its module's own
    out = run_program("""
        import torch
        def look():
            for f in (torch.conv2d, torch.scatter_reduce, torch.sort):
                print(type(f).__name__)
                try:
                    f.forward
                except AttributeError:
                    print("refused")
        look()
        torch.sort(tensor([2., 1.]))
        torch.scatter_reduce(tensor([1.]), 0, tensor([0]), tensor([2.]), "sum")
        torch.conv2d(ones(1, 1, 1, 1), ones(1, 1, 1, 1))
        look()
    """)
    assert out == ["builtin_function_or_method", "refused"] * 6


def test_an_entry_its_module_does_not_declare_is_an_error_that_names_the_fix():
    entry = Pending("not_an_op", "sorting", "elementwise", True, True, "Op")
    with pytest.raises(RuntimeError, match="not_an_op.*gradcli.ops.sorting.*make_manifest"):
        entry(1)
    assert OPS.get("not_an_op") is None


def test_a_lazy_module_imported_with_the_core_ones_is_refused():
    out = run_python("""
        import gradcli.ops.gather
        from gradcli.ops import lazy
        try:
            lazy.install_pending()
        except RuntimeError as e:
            print(e)
    """).stdout.strip()
    assert out == ("gradcli.ops.gather is imported with the core op modules: it cannot load "
                   "at first use (gradcli.ops.lazy.LAZY_MODULES)")


def test_an_op_declared_after_another_of_its_name_and_class_is_refused():
    done = run_python("""
        import importlib.abc, importlib.util, sys
        from gradcli.ops import lazy, registry

        SOURCE = '''
        from .registry import Op, register
        Op("twice", lambda a: a, "self: grad")
        register(Op("twice", lambda a: a, "self: grad"))
        '''

        class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
            def find_spec(self, name, path=None, target=None):
                if name == "gradcli.ops.twice":
                    return importlib.util.spec_from_loader(name, self)
            def create_module(self, spec):
                return None
            def exec_module(self, module):
                module.__package__ = "gradcli.ops"
                import textwrap
                exec(textwrap.dedent(SOURCE), vars(module))

        sys.meta_path.insert(0, Finder())
        try:
            lazy._import_declaring("twice")
        except RuntimeError as e:
            print(e)
    """, eager=True)
    assert done.stdout.strip() == ("gradcli.ops.twice declares the Op 'twice' of the table after "
                                   "another of that name and class: that one would take the "
                                   "table's entry over when the module loads at first use")
