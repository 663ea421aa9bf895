"""The strategy registry: `StrategySpec` (a strategy as data) and building strategies by name.

A strategy is registered by name with `register`; `get_strategy` builds one from a name, a
``"name:key=value,..."`` string or the ``{"name", "params"}`` form a `StrategySpec` stores, so
every result in the store can be rebuilt. The built-in strategies register themselves when
``ctxlab.strategies`` is imported, which importing this module (a submodule of it) always does
first; so the registry needs no loading hook and imports nothing of the strategies.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxlab.registry import Registry, parse_spec

if TYPE_CHECKING:  # for type checkers only: `base` imports this module, never the reverse at run time
    from ctxlab.strategies.base import BaseStrategy

STRATEGIES: Registry[type[BaseStrategy]] = Registry(
    "strategy", upgrade=lambda cls, params: cls.upgrade_params(params))


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

    def build(self) -> BaseStrategy:
        """The strategy this spec describes."""
        return get_strategy(self.name, **dict(self.params))

    def __str__(self) -> str:
        return self.name + "".join(f" {k}={v}" for k, v in self.params)


def register(name: str) -> Callable[[type[BaseStrategy]], type[BaseStrategy]]:
    """Class decorator: register a strategy dataclass under `name`."""

    def decorate(cls: type[BaseStrategy]) -> type[BaseStrategy]:
        cls.name = name
        return STRATEGIES.register(name)(cls)

    return decorate


def list_strategies() -> list[str]:
    """Registered strategy names, sorted."""
    return STRATEGIES.names()


def default_strategies(*, offline: bool = False) -> list[str]:
    """The strategies a replay runs when it names none: every registered one but the building
    blocks; with `offline`, also without those whose defaults call an LLM."""
    names = [n for n in list_strategies() if not STRATEGIES.get(n).building_block]
    return [n for n in names if not get_strategy(n).spec.uses_llm()] if offline else names


def strategy_params(name: str) -> dict[str, Any]:
    """A strategy's parameters and their defaults."""
    return STRATEGIES.parameters(name)


def get_strategy(name: str | Mapping[str, Any], **params: Any) -> BaseStrategy:
    """Build a registered strategy; also accepts ``"name:key=value,..."`` or ``{"name", "params"}``.

    Parameters a strategy renamed are accepted under their old names (`BaseStrategy.upgrade_params`),
    so specs stored by an older ctxlab still build.

    Raises:
        UnknownNameError: unknown strategy, or a parameter it does not have (lists the valid ones).
        CtxlabError: a parameter value of the wrong type.
    """
    return STRATEGIES.build(name, **params)


def _names_llm(value: Any) -> bool:
    if isinstance(value, str):
        return value == "llm" or value.startswith("llm:") or "summarizer=llm" in value
    if isinstance(value, list | tuple):
        return any(_names_llm(v) for v in value)
    if isinstance(value, Mapping):
        return any(_names_llm(v) for v in value.values())
    return False


__all__ = ["STRATEGIES", "StrategySpec", "default_strategies", "get_strategy", "list_strategies", "parse_spec",
           "register", "strategy_params"]
