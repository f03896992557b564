"""`GRADCLI_LAZY_OPS=0 python -m gradcli.ops.make_manifest` writes gradcli/ops/manifest.py, the
names each lazy op module declares (gradcli.ops.lazy), from the modules as they are.  (With
GRADCLI_LAZY_OPS=0 the package loads every op module at import and notes what each declared,
without reading the manifest, which may be out of date.)"""

import sys

from .lazy import COLLECTED, EAGER, LAZY_MODULES, MANIFEST_PATH, manifest_text

if __name__ == "__main__":
    if not EAGER or list(COLLECTED) != list(LAZY_MODULES):
        sys.exit("run it as `GRADCLI_LAZY_OPS=0 python -m gradcli.ops.make_manifest`")
    with open(MANIFEST_PATH, "w", encoding="utf-8") as f:
        f.write(manifest_text(COLLECTED))
