"""The five seed systems, each a strategy with its own parameters over the shared mechanics:
`sliding_window` (000), `compaction` and `compaction_seed001` (001), `gssc` and `gssc_retrieval`
(002), `window_guard` (003), `key_message` (004).

A seed whose code needs more than one module is a package named after it: `strategy.py` holds the
registered classes, its other modules are private helpers (imported only inside that package and
by its tests), and its ``__init__`` re-exports the public names. Every module and package here is
imported when ``ctxlab.strategies`` is.
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
