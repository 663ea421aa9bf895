"""The search space of a preset at a window, and the settings it is made of.

A `Dimension` is one searched knob with its span resolved at the window and aligned to the knob's
``step`` (the grid and the optimizer only propose multiples of it, so a rerun proposes the same
settings). `grid` gives ``points`` evenly spaced values per dimension (`GRID_POINTS` by default,
both ends included). A `Setting` is what the objective evaluates: the preset, its knobs as the
agent writes them, the ctxlab parameters (overrides of the preset's defaults; knobs not searched
keep the preset's values) and a canonical `key` for caching.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.strategies.policy.knobs import Knob, Tuning
from ctxlab.tune.agents import knobs_for
from ctxlab.tune.snippets import written_values

# Five points per knob: both ends, the middle and the quarter points; two knobs make 25 settings.
GRID_POINTS = 5


class Dimension(NamedTuple):
    """One searched knob: ``[low, high]`` in its unit at a window, multiples of its step."""

    knob: Knob
    low: float
    high: float

    @property
    def name(self) -> str:
        return self.knob.name

    def grid(self, points: int = GRID_POINTS) -> tuple[float, ...]:
        """`points` evenly spaced values from `low` to `high`, on the step (fewer where they coincide)."""
        if points < 1:
            raise CtxlabError("a grid needs at least one point per knob")
        span = self.high - self.low
        raw = [self.low + span * i / max(points - 1, 1) for i in range(points)] if points > 1 else [self.low]
        return tuple(sorted({on_step(x, self.knob) for x in raw}))


def on_step(x: float, knob: Knob) -> float:
    """`x` rounded to the knob's step (an int for an int knob)."""
    value = round(round(x / knob.step) * knob.step, 10) if knob.step else x
    return int(round(value)) if knob.kind == "int" else value


def dimensions(entry: Tuning, window: int, names: Sequence[str] | None = None) -> tuple[Dimension, ...]:
    """The searched knobs of `entry` at `window` tokens (those in `names`, or every one whose span is
    not empty there: the others stay at the preset's value, see `held`).

    Raises:
        UnknownNameError: a name that is not one of the entry's searchable knobs.
        CtxlabError: a named knob with nothing to search at this window, or no knob left to search
            (the preset cannot be tuned at this window; the message says why).
    """
    searchable = {k.name: k for k in entry.knobs if k.searched is not None and k.kind in ("int", "float")}
    for name in names or ():
        if name not in searchable:
            raise UnknownNameError(f"searchable knob of {entry.preset}", name, list(searchable))
    empty = held(entry, window)
    if names is not None:
        for name in names:
            if name in empty:
                raise CtxlabError(empty[name])
        return tuple(_dimension(searchable[name], window) for name in names)
    chosen = [name for name in searchable if name not in empty]
    if not chosen and empty:
        raise CtxlabError(f"{entry.preset} cannot be tuned at a window of {window:,} tokens: "
                          + "; ".join(empty.values()))
    return tuple(_dimension(searchable[name], window) for name in chosen)


def held(entry: Tuning, window: int) -> dict[str, str]:
    """The searchable knobs of `entry` whose span is empty at `window` tokens, each with the reason:
    the tuner leaves them at the preset's value (an Anthropic compaction trigger cannot go under
    50,000 tokens, so at a smaller window the API never compacts before the window is full)."""
    out = {}
    for knob in entry.knobs:
        if knob.searched is not None and knob.kind in ("int", "float") and _span(knob, window) is None:
            low, high = knob.searched.resolve(window)
            why = f": {knob.searched.why}" if knob.searched.why else ""
            out[knob.name] = (f"{knob.name}: nothing to search at a window of {window:,} tokens (its span "
                              f"{low:,.0f}..{high:,.0f} {knob.unit} is empty there{why})")
    return out


def _span(knob: Knob, window: int) -> tuple[float, float] | None:
    """The knob's searched span at `window`, aligned to its step; None when empty."""
    assert knob.searched is not None
    low, high = knob.searched.resolve(window)
    if low is None or high is None:
        raise CtxlabError(f"{knob.name}: its searched span must be bounded")
    step = knob.step or 1
    low, high = math.ceil(round(low / step, 9)) * step, math.floor(round(high / step, 9)) * step
    return None if low > high else (low, high)


def _dimension(knob: Knob, window: int) -> Dimension:
    span = _span(knob, window)
    assert span is not None  # `dimensions` set empty spans aside
    return Dimension(knob, on_step(span[0], knob), on_step(span[1], knob))


class Setting(NamedTuple):
    """A point of the search: ``values`` in the agent's terms, ``params`` the ctxlab overrides."""

    preset: str
    window: int
    values: Mapping[str, Any]
    params: Mapping[str, Any]
    key: str


def setting(preset: str, window: int, numbers: Mapping[str, float], scope: str = "") -> Setting:
    """The setting where each named knob sits at its number (the others at the preset's values).

    Args:
        preset: a preset in the knob table.
        window: the context window (tokens).
        numbers: knob name -> position on its searched axis (its unit).
        scope: what else the evaluation depends on (sessions, price model), part of the key.
    """
    entry = knobs_for(preset)
    params: dict[str, Any] = {}
    for name, number in numbers.items():
        knob = entry.knob(name)
        params |= knob.encode(knob.write(on_step(number, knob)), window)
    return Setting(preset, window, written_values(preset, params, window), params,
                   setting_key(preset, window, params, scope))


def setting_key(preset: str, window: int, params: Mapping[str, Any], scope: str = "") -> str:
    """A canonical text for a setting: sorted keys, whole floats as ints, floats to 9 decimals."""
    body = {"preset": preset, "window": window, "scope": scope, "params": {k: _canon(v) for k, v in params.items()}}
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def _canon(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else round(value, 9)
    if isinstance(value, int):
        return value
    if isinstance(value, Iterable):
        return [_canon(v) for v in value]
    return str(value)


__all__ = ["GRID_POINTS", "Dimension", "Setting", "dimensions", "held", "on_step", "setting", "setting_key"]
