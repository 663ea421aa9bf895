"""ctxlab's command line: thin commands over the library, one module per area.

Each module registers its commands on the shared `app`; this package imports them all.
"""

from __future__ import annotations

import importlib
import pkgutil

from ctxlab.cli.app import app, main

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in ("app", "__main__"):
        importlib.import_module(f"{__name__}.{_module}")

__all__ = ["app", "main"]
