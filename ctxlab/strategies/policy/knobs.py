"""An agent's declaration beside its preset: the one source it cites, the knobs a user sets (what
the agent calls them, the fields they set, the range its source allows and the one the tuner
searches, its default) and the snippet forms that write them in the agent's own terms.

A `Knob` holds an agent value *as the agent writes it* (an int, a float, a LangChain
``("fraction", 0.8)`` tuple, ``None`` for "unset, the agent's default") and converts it both ways
through its `Conversion` (`ctxlab.strategies.policy.conversions`): ``encode(value, window)`` gives
the policy fields, ``decode(params, window)`` reads them back. The preset's values of those fields
are the knob's default encoded (`preset` does it), so a default is written once, beside its range.
The tuner moves along a number (``write``/``number``: a share, tokens, a count) in the knob's
``unit``; a `Span` bound may be a share of the context window (``W(0.9)``).

`Tuning` gathers one preset's knobs, forms and cross-knob constraints with its `Source`; a knob or
form names the file that defines it (``where``), cited at the source's version (`Tuning.cite`), or
another `Source` (a documentation page). Rendering, reading and searching are ``ctxlab.tune``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ctxlab.strategies.policy.conversions import Conversion


class Source(NamedTuple):
    """Where an agent's behaviour comes from: repository (or documentation), file(s), and the one
    commit or version read."""

    repo: str
    path: str
    version: str
    note: str = ""

    def __str__(self) -> str:
        at = f" @ {self.version}" if self.version else ""
        return " ".join(p for p in (self.repo, self.path) if p) + at + (f" ({self.note})" if self.note else "")


class W(NamedTuple):
    """A bound written as a share of the context window: ``W(0.9)`` is 0.9 x window."""

    share: float


Bound = float | W | None


class Span(NamedTuple):
    """A closed range ``[low, high]`` in a knob's unit; None: unbounded; ``why`` says why a searched
    span is narrower than the one the source allows."""

    low: Bound
    high: Bound
    why: str = ""

    def resolve(self, window: int) -> tuple[float | None, float | None]:
        """The bounds as numbers for a context window of `window` tokens."""
        return _bound(self.low, window), _bound(self.high, window)


def _bound(bound: Bound, window: int) -> float | None:
    return bound.share * window if isinstance(bound, W) else bound


def same(value: Any, window: int = 0) -> Any:
    """The identity conversion (the default ``write`` and ``number`` of a knob)."""
    return value


UNSET: Any = object()  # `Knob.replayed` when the preset replays the agent's default


class Knob(NamedTuple):
    """One user-facing knob of an agent (see the module docstring).

    ``kind`` is int, float, bool or names (a list of tool names); only int and float knobs with a
    ``searched`` span are searched. ``default`` is the agent's own default as written (None: unset,
    the agent derives it; ``note`` says how). ``replayed`` is the value the preset runs at when the
    agent's default cannot be replayed (LangChain's summarization trigger: unset never summarizes).
    """

    name: str
    kind: str
    unit: str
    default: Any
    sets: Conversion
    allowed: Span | None
    searched: Span | None
    step: float
    where: str | Source
    write: Callable[[float], Any] = same
    number: Callable[[Any, int], float | None] = same
    note: str = ""
    replayed: Any = UNSET

    @property
    def params(self) -> tuple[str, ...]:
        """The policy fields this knob sets."""
        return self.sets.params

    def encode(self, value: Any, window: int) -> dict[str, Any]:
        """The policy fields for `value` as the agent writes it, at a window of `window` tokens."""
        return self.sets.encode(value, window)

    def decode(self, params: Mapping[str, Any], window: int) -> Any:
        """The value as the agent writes it, read back from policy fields."""
        return self.sets.decode(params, window)

    @property
    def preset_value(self) -> Any:
        """The value the preset runs at: `replayed`, else the agent's `default`."""
        return self.default if self.replayed is UNSET else self.replayed


class Form(NamedTuple):
    """One way to write an agent's knobs: a file fragment, environment variables, a command line or
    a constructor call (``kind``: json, toml, yaml, env, cli, python; see `ctxlab.tune.forms`).

    ``paths`` maps each knob name to where its value goes: JSON/YAML keys (an int is a list index),
    a TOML key, a variable name, a flag (``("--flag",)`` or ``("-c", "key")``), or for Python
    ``(call name, keyword)``. ``where`` is the file (or `Source`) that defines those names.
    ``fixed`` entries are written along (``compaction.enabled = true``); ``template`` is the text
    around Python calls (``{Name}`` stands for a call's arguments) or the command a CLI form starts
    with; ``text_values`` writes every value as a string (environment).
    """

    kind: str
    title: str
    paths: Mapping[str, tuple[Any, ...]]
    where: str | Source
    fixed: Mapping[tuple[Any, ...], Any] = {}
    template: str = ""
    text_values: bool = False


class Constraint(NamedTuple):
    """A rule over several knobs' written values that the source enforces (checked before a setting
    is evaluated)."""

    text: str
    check: Callable[[Mapping[str, Any]], bool]


class Tuning(NamedTuple):
    """One preset's knobs and snippet forms, with the source they cite (see the module docstring)."""

    preset: str
    agent: str
    source: Source
    knobs: tuple[Knob, ...]
    forms: tuple[Form, ...]
    constraints: tuple[Constraint, ...] = ()
    note: str = ""

    def knob(self, name: str) -> Knob:
        """The knob named `name` (the agent's own name).

        Raises:
            KeyError: no such knob.
        """
        for knob in self.knobs:
            if knob.name == name:
                return knob
        raise KeyError(name)

    def violations(self, values: Mapping[str, Any]) -> list[str]:
        """The constraints `values` (written values by knob name) break."""
        return [c.text for c in self.constraints if not c.check(values)]

    def cite(self, where: str | Source) -> Source:
        """Where a knob or form is defined: a file of the source, at its version (or another source)."""
        if isinstance(where, Source):
            return where
        if not where:  # the source itself (a documentation page)
            return self.source
        return Source(self.source.repo, where, self.source.version)


__all__ = ["UNSET", "Bound", "Constraint", "Form", "Knob", "Source", "Span", "Tuning", "W", "same"]
