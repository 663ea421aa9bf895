"""Compression strategies behind one interface; every module in this package registers its own.

Importing the package imports each strategy module once, so dropping a new module here is all
it takes to add a strategy to `list_strategies()`, the CLI, the replay and the invariant tests.
"""

from __future__ import annotations

import importlib
import pkgutil

from ctxlab.strategies.base import (
    STRATEGIES,
    SUMMARY_CALL,
    BaseStrategy,
    CompressionResult,
    Event,
    Plan,
    Request,
    Strategy,
    StrategySpec,
    default_strategies,
    get_strategy,
    list_strategies,
    parse_spec,
    register,
    strategy_params,
    summary_call,
)

_SHARED = {"base", "mechanics"}
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if _module not in _SHARED and not _module.startswith("_"):
        importlib.import_module(f"{__name__}.{_module}")

__all__ = ["STRATEGIES", "SUMMARY_CALL", "BaseStrategy", "CompressionResult", "Event", "Plan", "Request", "Strategy", "StrategySpec",
           "default_strategies", "get_strategy", "list_strategies", "parse_spec", "register", "strategy_params",
           "summary_call"]
