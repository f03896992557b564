"""gradcli.lang.lalr reads lark's private internals to export its LALR tables, so pyproject
bounds lark from above.  Installed within the bound, the export must work (a lark whose
internals moved makes this fail by name, where the parser would otherwise fall back to lark
quietly, slower), and tests/lang/test_parser.py's corpus checks the tables parse as lark does."""

import re
from pathlib import Path

import lark

from gradcli.lang import lalr, parser

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _version(text):
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def test_lark_is_within_pyproject_s_bounds():
    spec = re.search(r'"lark>=([\d.]+),<([\d.]+)"', PYPROJECT.read_text(encoding="utf-8"))
    assert spec, "pyproject.toml must bound lark from above (lalr.py reads its internals)"
    low, high = _version(spec.group(1)), _version(spec.group(2))
    assert low <= _version(lark.__version__) < high, lark.__version__


def test_lark_s_internals_export():
    try:
        data = lalr.export(parser.lark_parser(), parser.grammar_text())
    except (AttributeError, TypeError, ValueError, ImportError) as e:
        raise AssertionError(f"lark {lark.__version__}'s internals are not those "
                             f"gradcli.lang.lalr.export reads: {e!r}") from e
    assert data["states"] and data["rules"] and data["patterns"]
    assert parser.tables_parser() is not None
