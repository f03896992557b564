"""Make `import gradcli` work from a checkout without installing it or setting PYTHONPATH."""

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
