"""Strategies by name: `register` a strategy class, `get_strategy` builds one.

`get_strategy` takes a name, a ``"name:key=value,..."`` string or the ``{"name", "params"}`` form a
`StrategySpec` stores, so every result in the store can be rebuilt. The registry itself
(`STRATEGIES`) is `ctxlab.strategies.spec`'s. The built-in strategies register themselves when
``ctxlab.strategies`` is imported, which importing this module (a submodule of it) always does
first; so the registry needs no loading hook.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ctxlab.registry import parse_spec
from ctxlab.strategies.base import BaseStrategy
from ctxlab.strategies.spec import STRATEGIES, StrategySpec


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


__all__ = ["STRATEGIES", "StrategySpec", "default_strategies", "get_strategy", "list_strategies", "parse_spec",
           "register", "strategy_params"]
