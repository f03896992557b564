"""torch.save/torch.load through the commands: files live in the session's memory (a REPL's
across statements, forgotten by :reset and at the end of a one-shot run), one note on standard
error, standard output PyTorch's, no file written anywhere, the memory limit holding."""

import io
import os
import subprocess
import sys
from pathlib import Path

from gradcli.cli.replcore import ReplCore

ROOT = Path(__file__).resolve().parents[2]
NOTE = ("note: torch.save('{}') keeps the file in this session's memory (gradcli programs write "
        "no file)\n")


def _gradcli(*args, input=None, cwd=None, **env):
    environment = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", **env)
    return subprocess.run([sys.executable, "-m", "gradcli.cli.main", *args], input=input,
                          capture_output=True, text=True, env=environment, timeout=120,
                          cwd=cwd or ROOT)


SAVES = ("import torch\n"
         "x = torch.tensor([1., 2.], requires_grad=True)\n"
         "torch.save({'x': x * 3, 'step': 1}, 'ckpt/x.pt')\n"
         "torch.save(x, 'x.pt')\n"
         "print(torch.load('ckpt/x.pt'), torch.load('x.pt'))\n")


def test_a_run_saves_and_loads_in_memory_and_writes_no_file(tmp_path):
    program = tmp_path / "saves.grad"
    program.write_text(SAVES)
    r = _gradcli("run", str(program), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("{'x': tensor([3., 6.], requires_grad=True), 'step': 1} "
                        "tensor([1., 2.], requires_grad=True)\n")
    assert r.stderr == NOTE.format("ckpt/x.pt")   # (once, for the session's first save)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saves.grad"]
    # (a directory is no obstacle: the store has none, and every parent "exists")


def test_a_one_shot_run_forgets_its_files_at_exit(tmp_path):
    (tmp_path / "saves.grad").write_text(SAVES)
    program = tmp_path / "loads.grad"
    program.write_text("import torch\nprint(torch.load('x.pt'))\n")
    assert _gradcli("run", str(tmp_path / "saves.grad"), cwd=tmp_path).returncode == 0
    r = _gradcli("run", str(program), cwd=tmp_path)
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.splitlines()[0].endswith(
        "FileNotFoundError: [Errno 2] No such file or directory: 'x.pt'")


def test_the_piped_repl_loads_in_a_later_statement_what_an_earlier_one_saved():
    r = _gradcli(input="import torch\nw = torch.ones(2, requires_grad=True)\n"
                       "torch.save(w * 2, 'w.pt')\nw.data.zero_()\n"
                       "torch.load('w.pt')\ntorch.load('w.pt') is torch.load('w.pt')\n")
    assert r.returncode == 0, r.stderr
    # (its errors are on standard output, where the note would be too: it has none)
    assert r.stdout == "tensor([0., 0.])\ntensor([2., 2.], requires_grad=True)\nFalse\n"
    assert r.stderr == ""


def test_reset_forgets_the_sessions_files():
    core = ReplCore(out=io.StringIO())
    core.execute("import torch\ntorch.save(torch.ones(1), 'one.pt')\n")
    core.execute("print(torch.load('one.pt'))\n")
    core.execute(":reset")
    core.execute("import torch\ntorch.load('one.pt')\n")
    shown = core.out.getvalue()
    assert shown.startswith("tensor([1.])\n"), shown
    assert "FileNotFoundError: [Errno 2] No such file or directory: 'one.pt'" in shown


def test_sessions_do_not_share_their_files():
    first, second = ReplCore(out=io.StringIO()), ReplCore(out=io.StringIO())
    first.execute("import torch\ntorch.save(torch.ones(1), 'mine.pt')\n")
    second.execute("import torch\ntorch.load('mine.pt')\n")
    assert "FileNotFoundError" in second.out.getvalue()
    first.execute("print(torch.load('mine.pt'))\n")
    assert first.out.getvalue() == "tensor([1.])\n"


def test_saving_many_copies_meets_the_memory_limit_as_one_line():
    r = _gradcli("eval", "import torch\nx = torch.zeros(10_000_000)\n"
                         "for i in range(200):\n    torch.save(x, f'c{i}.pt')\ny = x.sum()",
                 GRADCLI_MAX_MEMORY="600M")
    assert r.returncode == 2
    assert r.stdout == ""
    errors = [line for line in r.stderr.splitlines() if not line.startswith("note: ")]
    assert len(errors) == 1 and errors[0].startswith("MemoryError: "), r.stderr


def test_the_python_api_keeps_its_files_in_the_process(tmp_path):
    code = ("import os, gradcli as torch\nos.chdir(%r)\n"
            "torch.save({'w': torch.ones(2)}, 'w.pt')\nprint(torch.load('w.pt'))\n"
            "print(sorted(os.listdir('.')))\n" % str(tmp_path))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "{'w': tensor([1., 1.])}\n[]\n"
    assert r.stderr == NOTE.format("w.pt")


def test_a_deeply_nested_object_is_a_one_line_recursion_error(tmp_path):
    program = tmp_path / "deep.grad"
    program.write_text("import torch\nl = []\nfor i in range(100000):\n    l = [l]\n"
                       "torch.save({'deep': l}, 'deep.pt')\n")
    r = _gradcli("run", str(program), cwd=tmp_path)
    assert r.returncode == 2
    assert "RecursionError: maximum recursion depth exceeded" in r.stderr.splitlines()[0]
