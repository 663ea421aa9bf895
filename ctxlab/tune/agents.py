"""The knob table, read from the registered strategies: each agent's preset declares its knobs and
snippet forms beside its policy (`ctxlab.strategies.policy.knobs.Tuning`, in the preset's module),
so a preset dropped into ``ctxlab/strategies/presets/`` (or registered from anywhere) with knobs
is tunable, and nothing here lists the agents."""

from __future__ import annotations

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.strategies import STRATEGIES
from ctxlab.strategies.policy.knobs import Tuning


def knobs_for(preset: str) -> Tuning:
    """The knobs of `preset`.

    Raises:
        CtxlabError: an agent's preset with nothing its users can set, saying why.
        UnknownNameError: any other strategy without user-facing knobs.
    """
    cls = STRATEGIES.get(preset) if preset in STRATEGIES else None
    if cls is not None and cls.untunable:
        raise CtxlabError(f"{preset} cannot be tuned: {cls.untunable}")
    if cls is None or cls.tuning is None:
        raise UnknownNameError("tunable preset", preset, tunable())
    tuning: Tuning = cls.tuning
    return tuning


def tunable() -> list[str]:
    """The presets with knobs a user can set, sorted."""
    return [name for name in STRATEGIES.names() if STRATEGIES.get(name).tuning is not None]


__all__ = ["knobs_for", "tunable"]
