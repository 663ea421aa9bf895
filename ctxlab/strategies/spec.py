"""Strategies as data: `StrategySpec` (a name and every parameter value) and `STRATEGIES`, the
registry that builds a strategy from one.

Every `CompressionResult` carries the spec of the strategy that made it and the store keeps it with
each result, so `StrategySpec.build` (or `ctxlab.strategies.registry.get_strategy`) rebuilds it.
The registry lives here, below the interface, because a spec builds itself through it; the
strategies register into it from above (`ctxlab.strategies.registry.register`), and importing any
module of ``ctxlab.strategies`` imports the package, which registers every built-in first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ctxlab.registry import Registry

# Entries are `BaseStrategy` subclasses (`ctxlab.strategies.base`, a layer above): typed loosely here.
STRATEGIES: Registry[Any] = Registry("strategy", upgrade=lambda cls, params: cls.upgrade_params(params))


@dataclass(frozen=True, slots=True)
class StrategySpec:
    """A strategy's name and every parameter value: enough to rebuild it exactly."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def to_json(self) -> str:
        return json.dumps({"name": self.name, "params": dict(self.params)}, sort_keys=True, default=str)

    @classmethod
    def from_json(cls, text: str) -> StrategySpec:
        data = json.loads(text)
        return cls(data["name"], tuple(sorted(data.get("params", {}).items())))

    def uses_llm(self) -> bool:
        """Whether running the strategy may call an LLM: a parameter, or a nested step's, names an
        ``llm`` summarizer."""
        return any(_names_llm(value) for _, value in self.params)

    def to_mapping(self) -> dict[str, Any]:
        """The ``{"name", "params"}`` form registries build from."""
        return {"name": self.name, "params": dict(self.params)}

    def build(self) -> Any:
        """The strategy this spec describes (a `ctxlab.strategies.base.BaseStrategy`; parameters a
        strategy renamed are upgraded on the way, see `get_strategy`)."""
        return STRATEGIES.build(self.to_mapping())

    def __str__(self) -> str:
        return self.name + "".join(f" {k}={v}" for k, v in self.params)


def _names_llm(value: Any) -> bool:
    if isinstance(value, str):
        return value == "llm" or value.startswith("llm:") or "summarizer=llm" in value
    if isinstance(value, list | tuple):
        return any(_names_llm(v) for v in value)
    if isinstance(value, Mapping):
        return any(_names_llm(v) for v in value.values())
    return False


__all__ = ["STRATEGIES", "StrategySpec"]
