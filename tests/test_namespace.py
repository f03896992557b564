"""gradcli/__init__.py: `import gradcli` is light (the frontend of a one-shot command imports
gradcli.cli without NumPy); the torch-like namespace (gradcli/api.py) loads on first use."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _python(code):
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_import_gradcli_imports_no_numpy_until_a_name_is_used():
    assert _python("import sys, gradcli, gradcli.cli.app, gradcli.kernel.process\n"
                   "print('numpy' in sys.modules, gradcli.__version__, 'numpy' in sys.modules)\n"
                   "print(float(gradcli.tensor(2.0) * 3), 'numpy' in sys.modules)\n") \
        == ["False", "0.1.0", "False", "6.0", "True"]


def test_the_namespace_is_the_same_however_it_is_reached():
    out = _python("import gradcli\n"
                  "names = dir(gradcli)\n"
                  "star = {}\n"
                  "exec('from gradcli import *', star)\n"
                  "import gradcli.api as api\n"
                  "print(all(getattr(gradcli, n) is getattr(api, n) for n in api.__all__),\n"
                  "      sorted(gradcli.__all__) == sorted(api.__all__), 'tensor' in names,\n"
                  "      all(star[n] is getattr(api, n) for n in api.__all__),\n"
                  "      gradcli.nn is api.nn)\n")
    assert out == ["True"] * 5


def test_a_name_that_is_not_there_is_an_attribute_error():
    out = _python("import gradcli\n"
                  "for name in ('no_such_name', '__wrapped__'):\n"
                  "    try:\n"
                  "        getattr(gradcli, name)\n"
                  "    except AttributeError as e:\n"
                  "        print(str(e).replace(' ', '_'))\n")
    assert out == ["module_'gradcli'_has_no_attribute_'no_such_name'",
                   "module_'gradcli'_has_no_attribute_'__wrapped__'"]
