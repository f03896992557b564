"""Attacks on the op table loaded at first use (gradcli.ops.lazy): a program that stops a
module's load half way (a RecursionError it provokes, the timeout, Ctrl-C) and what it then
holds.  Fresh interpreters: the rest of the suite runs with every module loaded."""

import textwrap

from processes import python_output

from gradcli.lang.allowed import OPAQUE_TYPES
from gradcli.lang.sandbox import static_builtins
from gradcli.ops.registry import Entry


def run_program(source):
    """The lines a program prints, run in a fresh process (no lazy module loaded)."""
    return python_output(textwrap.dedent(f"""
        from gradcli.lang.session import Session
        Session().run({textwrap.dedent(source)!r})
    """), GRADCLI_LAZY_OPS=None).splitlines()


def stopped_at_every_point(first_use, then):
    """What a program prints that makes its first use of first_use at every depth from beyond
    the recursion limit to well inside it (the loads the RecursionError stops end at every
    point of the module's import and installation, one of them after an entry has become its
    op's class and before the op is registered), then runs then: the types of torch.cat and
    torch.stack it saw after each, the errors other than RecursionError, then's output."""
    return run_program(f"""
import torch
x = torch.ones(2, requires_grad=True)
def use(n):
    if n == 0:
        return {first_use}
    return use(n - 1)
seen, errors = set(), set()
for n in range(1200, 0, -1):
    try:
        use(n)
    except RecursionError:
        pass
    except Exception as e:
        errors.add(str(e))
    seen.add(type(torch.cat).__name__)
    seen.add(type(torch.stack).__name__)
print(sorted(seen), sorted(errors))
{then}
""")


FINE = "['builtin_function_or_method'] []"
AFTER = ("print(torch.cat([x, x]).tolist(), torch.stack([x, x]).shape, "
         "torch.split(x, 1)[1].tolist())")


def test_a_load_a_program_stops_leaves_it_no_class_of_the_table():
    # (a program holding an op of a class not noted opaque could call the class: build an op
    # whose derivative formula is Python code run with Python's builtins)
    out = stopped_at_every_point("torch.cat([x, x])", AFTER)
    assert out == [FINE, "[1.0, 1.0, 1.0, 1.0] torch.Size([2, 2]) [1.0]"]


def test_a_load_a_program_stops_by_a_tensor_method_loads_again_at_the_next_use():
    out = stopped_at_every_point("x.split(1)", AFTER)
    assert out == [FINE, "[1.0, 1.0, 1.0, 1.0] torch.Size([2, 2]) [1.0]"]


def test_a_derivative_whose_preparation_a_program_stops_is_prepared_at_the_next_use():
    # (Op.prepare() compiles an op's formulas at its first backward)
    out = stopped_at_every_point("torch.autograd.grad(torch.cat([x, x]).sum(), x)",
                                 "print(torch.autograd.grad(torch.cat([x, x]).sum(), x))")
    assert out == [FINE, "(tensor([2., 2.]),)"]


def test_a_stopped_import_of_an_op_module_outside_its_load_imports_again():
    # torch.linalg's facade imports gradcli.ops.linalg (and slicing) itself: a RecursionError
    # in the middle left slicing's derivative helpers declared, and importing it again said
    # "derivative helper '_neg_shifts' is declared twice"
    out = stopped_at_every_point("torch.linalg.det(torch.eye(2))",
                                 "print(torch.linalg.det(torch.eye(2)), torch.roll(x, 1))")
    assert out == [FINE, "tensor(1.) tensor([1., 1.], grad_fn=<RollBackward0>)"]


def test_an_interrupted_load_keeps_the_entries_the_namespaces_hold():
    # Ctrl-C (or the timeout) during the installation step: the names stay the same objects,
    # Pending again, and the next use loads the module
    out = python_output(textwrap.dedent("""
        from gradcli import ops
        from gradcli.ops import lazy
        from gradcli.ops.entries import OPS, Pending
        import gradcli.api as torch
        cat, install = torch.cat, ops.install
        def interrupted(*args):
            ops.install = install
            raise KeyboardInterrupt
        ops.install = interrupted
        try:
            torch.cat([torch.ones(1)])
        except KeyboardInterrupt:
            print(type(cat).__name__, OPS["cat"] is cat, "join_split" in lazy.LOADED)
        print(torch.cat([torch.ones(1), torch.ones(1)]).tolist(), torch.cat is cat,
              type(cat).__name__, OPS["cat"] is cat, torch.ones(2).split(1)[0].tolist())
    """), GRADCLI_LAZY_OPS=None).splitlines()
    assert out == ["Pending True False", "[1.0, 1.0] True _ListOp True [1.0]"]


def test_every_class_of_the_table_is_opaque_from_its_making():
    static_builtins()

    class Made(Entry):
        pass

    assert Made in OPAQUE_TYPES


def test_dir_help_and_attribute_errors_of_an_entry_do_not_depend_on_its_load():
    # (before, a Pending entry listed its four attributes, gave its own docstring and named
    # itself in errors)
    look = """
        import torch
        print(dir(torch.conv2d), dir(torch.sort))
        help(torch.sort)
        for f in (torch.conv2d, torch.nn.functional.max_pool1d, torch.linalg.det):
            try:
                f.kind
            except AttributeError as e:
                print(e)
            try:
                f.not_there
            except AttributeError as e:
                print(e)
    """
    first = run_program(look)
    again = run_program("import torch\nloaded = [repr(f) for f in (torch.conv2d, torch.sort, "
                        "torch.nn.functional.max_pool1d, torch.linalg.det)]\n"
                        + textwrap.dedent(look) * 2)
    assert "Pending" not in "\n".join(first)
    assert again == first * 2


def test_completion_describes_an_op_the_same_before_and_after_its_load():
    out = python_output(textwrap.dedent("""
        from gradcli.cli.completer import complete
        from gradcli.lang.session import Session
        s = Session()
        s.run("import torch\\nmyconv = torch.conv2d")
        for _ in range(2):
            print([c.meta for c in complete("myco", namespace=s.namespace)])
            s.run("torch.conv2d(ones(1, 1, 1, 1), ones(1, 1, 1, 1))")
    """), GRADCLI_LAZY_OPS=None).splitlines()
    assert out[0] == out[1] and "Pending" not in out[0]



def test_a_pending_entry_is_opaque_even_if_every_module_loaded_before_the_sandbox():
    out = python_output(textwrap.dedent("""
        from gradcli.ops import lazy
        from gradcli.ops.entries import Pending
        lazy.load_all()
        from gradcli.lang.allowed import OPAQUE_TYPES
        from gradcli.lang.sandbox import static_builtins
        static_builtins()
        print(Pending in OPAQUE_TYPES)
    """), GRADCLI_LAZY_OPS=None)
    assert out == "True\n"


def test_the_timeout_in_the_middle_of_a_load_leaves_the_next_statement_a_loadable_table():
    # (the load made slow: its installation step sleeps past the session's time limit; the
    # alarm waits until the load is done: gradcli.ops.lazy.load)
    out = python_output(textwrap.dedent("""
        import time
        from gradcli import ops
        from gradcli.lang.errors import ProgramError
        from gradcli.lang.session import Session
        install = ops.install
        def slow(*args):
            ops.install = install
            time.sleep(1)
            install(*args)
        ops.install = slow
        s = Session()
        s.run("import torch\\nx = torch.ones(2)\\nf = torch.cat")
        try:
            s.run("y = torch.cat([x, x])", timeout=0.2)
        except ProgramError as e:
            print(str(e).split(" (")[0])
        s.run("print(torch.cat([x, x]), f is torch.cat, x.split(1)[0], type(f).__name__)")
    """), GRADCLI_LAZY_OPS=None).splitlines()
    assert out == ["TimeoutError: program ran longer than 0.2 s",
                   "tensor([1., 1., 1., 1.]) True tensor([1.]) builtin_function_or_method"]


def test_an_ops_formula_text_whose_making_is_stopped_is_made_at_the_next_read(monkeypatch):
    from gradcli.ops import derivatives
    from gradcli.ops.registry import Op
    op = Op("stopped_text", lambda a: a, "self: grad * 2")
    op.prepare()
    text = derivatives.text

    def stopped(*args):
        monkeypatch.setattr(derivatives, "text", text)
        raise KeyboardInterrupt
    monkeypatch.setattr(derivatives, "text", stopped)
    try:
        op.formula
    except KeyboardInterrupt:
        pass
    assert op.formula == Op("stopped_text", lambda a: a, "self: grad * 2").formula


def test_a_stopped_load_keeps_the_modules_imported_before_it():
    # torch.linalg imports gradcli.ops.linalg (and slicing, matmul, ...) without lazy.load:
    # a later load that Ctrl-C stops in their installation step must not import them again
    # (two LinAlgError classes: `except torch.linalg.LinAlgError` would miss the new one)
    out = python_output(textwrap.dedent("""
        import sys
        import gradcli.api as torch
        from gradcli import ops
        torch.linalg.det(torch.eye(2))
        linalg = sys.modules["gradcli.ops.linalg"]
        install = ops.install
        def interrupted(*args):
            ops.install = install
            raise KeyboardInterrupt
        ops.install = interrupted
        try:
            torch.sort(torch.ones(2))
        except KeyboardInterrupt:
            pass
        print(sys.modules["gradcli.ops.linalg"] is linalg,
              torch.sort(torch.tensor([2., 1.])).values.tolist(), torch.ones(2).roll(1).tolist())
        try:
            torch.linalg.inv(torch.zeros(2, 2))
        except torch.linalg.LinAlgError:
            print("caught")
    """), GRADCLI_LAZY_OPS=None).splitlines()
    assert out == ["True [1.0, 2.0] [1.0, 1.0]", "caught"]


def test_a_comparison_whose_first_use_a_program_stops_is_no_type_error():
    # (Python turns an error in the lookup of __gt__ into "'>' not supported between ...")
    out = stopped_at_every_point("(x > 0, x <= 1, x == x, 0 < x)", "print(x > 1, x != 1)")
    assert out == [FINE, "tensor([False, False]) tensor([False, False])"]


def test_the_undo_of_a_stopped_load_holds_the_alarm_and_ctrl_c():
    # (the timeout's alarm repeats every 50 ms: one inside the undo would leave it half done;
    # the load's handlers keep them, and give them back when it is done)
    out = python_output(textwrap.dedent("""
        import signal
        from gradcli.ops import derivatives, lazy

        class Watched(dict):
            handlers = set()

            def pop(self, *args):
                Watched.handlers |= {signal.getsignal(signal.SIGINT),
                                     signal.getsignal(signal.SIGALRM)}
                return dict.pop(self, *args)
        derivatives.HELPERS = Watched(derivatives.HELPERS)
        def alarm(number, frame):
            pass
        signal.signal(signal.SIGALRM, alarm)

        import_module = lazy.importlib.import_module

        def import_then_stop(name):
            import_module(name)
            raise KeyboardInterrupt
        lazy.importlib.import_module = import_then_stop
        try:
            lazy.load("sorting")
        except KeyboardInterrupt:
            pass
        print(Watched.handlers & {signal.default_int_handler, alarm},
              signal.getsignal(signal.SIGINT) is signal.default_int_handler,
              signal.getsignal(signal.SIGALRM) is alarm, "sorting" in lazy.LOADED)
    """), GRADCLI_LAZY_OPS=None).strip().splitlines()[-1]
    assert out == "set() True True False"
