"""The wheel that `pip install .` builds: every package of the source tree, the grammar inside
it, and no import of a module that is neither a dependency nor the standard library."""

import ast
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEPENDENCIES = {"numpy", "lark", "typer", "rich", "prompt_toolkit", "plotille"}
OPTIONAL = {"pygments",    # rich's own dependency; the REPL's highlighter does without it
            "matplotlib"}  # plot --output FILE.png|svg: the `plot` extra


def _source_packages():
    return sorted(".".join(p.parent.relative_to(ROOT).parts)
                  for p in (ROOT / "gradcli").rglob("__init__.py"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "-q", "-w", str(out), str(ROOT)], capture_output=True, text=True,
                       timeout=300)
    # (the build uses this environment's setuptools, which the `test` extra requires)
    assert r.returncode == 0, r.stderr
    (path,) = out.glob("gradcli-*.whl")
    with zipfile.ZipFile(path) as z:
        return set(z.namelist())


def test_wheel_holds_every_package_and_the_grammar(wheel):
    for package in _source_packages():
        assert package.replace(".", "/") + "/__init__.py" in wheel, package
    assert "gradcli/grammar/gradcli.lark" in wheel


def test_package_imports_only_dependencies_and_the_standard_library():
    stdlib = set(sys.stdlib_module_names)
    for path in (ROOT / "gradcli").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in stdlib | DEPENDENCIES | OPTIONAL or top == "gradcli", (
                    f"{path.relative_to(ROOT)} imports {name}")


def test_pyproject_lists_the_dependencies_the_code_imports():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = re.search(r"dependencies = \[(.*?)\]", text, re.S).group(1)
    declared = {re.split(r"[<>=!\[ ]", d.strip().strip('"'))[0].replace("-", "_")
                for d in re.findall(r'"[^"]+"', block)}
    assert declared == DEPENDENCIES


def test_python_dash_m_runs_the_command():
    r = subprocess.run([sys.executable, "-m", "gradcli", "eval", "z=(2*x)**3", "--at", "x=3"],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "dz/dx = 216." in r.stdout
    r = subprocess.run([sys.executable, "-m", "gradcli", "eval", "z=("], capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2 and r.stderr.startswith("SyntaxError"), r.stderr
