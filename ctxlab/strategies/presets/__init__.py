"""The agents' compaction policies as data: each module registers `preset`s of `Policy` with their
public source (pi, codex, langchain, openhands, inspect) or ctxlab's own (recommended).

Every module here is imported when ``ctxlab.strategies`` is, so a new preset needs only its module.
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
