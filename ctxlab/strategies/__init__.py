"""Compression strategies behind one interface.

The package in layers, each importing only those before it (tests/test_layers.py checks it):

- `trigger`, `signals` and `spec`: when a strategy compacts (the `Trigger` vocabulary and what it
  measures besides tokens), and a strategy as data (`StrategySpec`, the `STRATEGIES` registry);
- `result`: what a strategy works on and hands back (`Request`, `Plan`, `CompressionResult`);
- `base`: the interface (`Strategy`, `BaseStrategy`: when, what, and `compress` around them);
- `registry`: strategies by name (`register`, `get_strategy`, `list_strategies`);
- `mechanics/`: small pure functions with explicit arguments that every strategy composes;
- `policy/`: the `Policy` model, a compaction policy as data over the mechanics, and `preset`;
- `presets/` (the agents' policies, one module per agent), `seeds/` (the five seed systems) and
  `general/` (no agent's: `noop`, `observation_masking`, `pipeline`).

Importing the package registers every built-in: dropping a module into `presets/` or `seeds/` is
all it takes to add a strategy to `list_strategies()`, the CLI, the replay and the invariant tests.
"""

from __future__ import annotations

from ctxlab.strategies import general, presets, seeds  # noqa: F401  (registers)
from ctxlab.strategies.base import (
    SUMMARY_CALL,
    BaseStrategy,
    CompressionResult,
    Event,
    Plan,
    Request,
    Strategy,
    summary_call,
)
from ctxlab.strategies.registry import (
    STRATEGIES,
    StrategySpec,
    default_strategies,
    get_strategy,
    list_strategies,
    parse_spec,
    register,
    strategy_params,
)

__all__ = ["STRATEGIES", "SUMMARY_CALL", "BaseStrategy", "CompressionResult", "Event", "Plan", "Request", "Strategy",
           "StrategySpec", "default_strategies", "get_strategy", "list_strategies", "parse_spec", "register",
           "strategy_params", "summary_call"]
