"""The package's layers point one way: every import of every module (at module level or inside
a function, absolute or relative) goes to a lower layer or stays in its own package, as LAYERS
declares; and every Tensor attribute is the engine's own or installed through the engine's one
way in (engine.tensor.install_attribute)."""

import ast
import sys
from pathlib import Path

import pytest

import gradcli

PACKAGE = Path(gradcli.__file__).resolve().parent

# Lowest first.  A package may import its own modules and those of the packages in lower rows;
# the packages of one row are siblings and import neither each other nor anything above.
# "gradcli" is the package's own namespace (gradcli/__init__.py, `import gradcli as torch`).
LAYERS = [
    {"engine", "process", "version", "lazy_modules"},  # Tensor, nodes, backward loop; process
    #                                   settings; the list of the modules loaded at first use
    {"ops"},                            # the op table, registered into the engine
    {"autograd", "linalg", "cuda", "functions", "data"},  # torch.autograd, the torch.*
    #                                   namespaces; torch.utils.data
    {"nn", "utils"},                    # torch.nn; torch.utils (checkpoint, data)
    {"optim", "func"},
    {"serialization"},                  # torch.save/load: copies of modules and optimizers
    {"api"},                            # the torch-like namespace, made of all of the above
    {"gradcli"},                        # the package: loads api on first use
    {"lang"},                           # the language programs are written in
    {"analysis", "render"},             # results as data; results as text
    {"kernel"},                         # the evaluator process
    {"cli"},                            # the command line
    {"__main__"},                       # `python -m gradcli`
]

RANK = {package: rank for rank, row in enumerate(LAYERS) for package in row}

# Arrows the layers do not allow yet, each named: (importing package, imported package): why.
# gradcli/cli/ is the lead engineer's this session; arrows out of it that point up would be
# listed here rather than fixed from outside (none are found today).
ALLOWED = {}


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_of(module):
    """The layer package of a gradcli module name: its first part below gradcli, or "gradcli"
    for the package's namespace itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "gradcli"


def is_module(name):
    """Whether the dotted gradcli name is a module or package (not an attribute)."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(path):
    """(line, module imported) for every import statement of the file, anywhere in it."""
    module = module_name(path)
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not is_package:
                    base.pop()
                base = base[:len(base) - (node.level - 1)]
                if node.module:
                    base.append(node.module)
                source = ".".join(base)
            else:
                source = node.module
            if not source.split(".")[0] == "gradcli":
                continue
            # `from . import x`: x is a module of source, or a name source defines
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                found.append((node.lineno, sub if is_module(sub) else source))
    return [(line, name) for line, name in found if name.split(".")[0] == "gradcli"]


def arrows():
    """[(importing package, imported package, "file:line imports module")] across packages."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = package_of(module_name(path))
        for line, target in imported_modules(path):
            dest = package_of(target)
            if dest != source:
                out.append((source, dest, f"{path.relative_to(PACKAGE.parent)}:{line} "
                                          f"imports {target}"))
    return out


def test_every_package_has_a_layer():
    packages = {package_of(module_name(p)) for p in PACKAGE.rglob("*.py")}
    assert packages - set(RANK) == set()


def test_imports_point_down():
    upward = [f"{where} ({source} -> {dest})" for source, dest, where in arrows()
              if RANK[dest] >= RANK[source] and (source, dest) not in ALLOWED]
    assert upward == []


def test_the_allowances_are_still_needed():
    met = {(source, dest) for source, dest, _ in arrows()}
    assert set(ALLOWED) <= met


def test_the_walk_sees_every_kind_of_import(tmp_path, monkeypatch):
    """The walker itself: relative and absolute, module level and inside functions, `from .
    import module` and `from .. import name`."""
    root = tmp_path / "gradcli"
    (root / "engine").mkdir(parents=True)
    (root / "ops").mkdir()
    for f in ("__init__.py", "engine/__init__.py", "ops/__init__.py", "ops/registry.py"):
        (root / f).write_text("")
    (root / "engine" / "tensor.py").write_text(
        "import numpy\n"
        "from ..ops import registry\n"
        "def f():\n"
        "    import gradcli.ops.registry\n"
        "    from .. import tensor_thing\n"
        "    from . import grad_mode\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", root)
    found = imported_modules(root / "engine" / "tensor.py")
    assert found == [(2, "gradcli.ops.registry"), (4, "gradcli.ops.registry"),
                     (5, "gradcli"), (6, "gradcli.engine")]
    assert [(s, d) for s, d, _ in arrows()] == [("engine", "ops"), ("engine", "ops"),
                                                ("engine", "gradcli")]


@pytest.mark.parametrize("package", ["engine"])
def test_the_engine_imports_nothing_above_it(package):
    assert [where for source, dest, where in arrows() if source == package] == []


def test_every_tensor_attribute_is_the_engine_s_or_installed():
    from gradcli.engine.tensor import ENGINE_ATTRIBUTES, INSTALLED, Tensor
    assert set(Tensor.__dict__) - ENGINE_ATTRIBUTES - INSTALLED == set()
    assert {"add", "__add__", "T", "float", "uniform_"} <= INSTALLED


def test_only_the_engine_sets_tensor_attributes_directly():
    """Outside engine/, nothing gives Tensor an attribute but install_attribute."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if package_of(module_name(path)) == "engine":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "setattr" and node.args
                    and isinstance(node.args[0], ast.Name) and node.args[0].id == "Tensor"):
                found.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                            and target.value.id == "Tensor"
                            and target.attr not in ENGINE_STATE):
                        found.append(f"{path.name}:{node.lineno}")
    assert found == []


# class attributes of the engine that others may reset (state, not an attribute they add)
ENGINE_STATE = {"_warned_scalar"}


def test_install_attribute_keeps_the_engine_s_own():
    from gradcli.engine.tensor import install_attribute
    with pytest.raises(TypeError, match="engine's own"):
        install_attribute("backward", None)
