"""The user-facing knobs of each agent preset, as data: what the agent calls them, what ctxlab
parameters they set, the range the agent's source accepts, the range the tuner searches, and the
agent's default, each with the file (and commit) or documentation page that defines it.

A `Knob` holds an agent value *as the agent writes it* (an int, a float, a LangChain
``("fraction", 0.8)`` tuple, ``None`` for "unset, the agent's default") and converts it both ways:
``encode(value, window)`` gives the ctxlab parameters, ``decode(params, window)`` reads them back.
The tuner moves along a number (``write``/``number``: a share, tokens, a count) in the knob's
``unit``; a `Span` bound may be a share of the context window (``W(0.9)``).

`AgentKnobs` is one preset's entry: its knobs, the snippet `Form` s that write them in the agent's
own terms (`ctxlab.tune.forms`), cross-knob constraints, and for a preset not registered yet (the
late-2026 agents issue) the ctxlab parameters it must add. Entries live in
`ctxlab.tune.agents`, one self-contained value per preset, so each can move beside its preset.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple


class Ref(NamedTuple):
    """Where a name or a default is defined: a repository file at a commit, or a documentation page
    (``where`` a URL, ``version`` the date read or how it was read)."""

    where: str
    path: str = ""
    version: str = ""

    def __str__(self) -> str:
        return " ".join(part for part in (self.where, self.path, f"@ {self.version}" if self.version else "") if part)


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


class Knob(NamedTuple):
    """One user-facing knob of an agent (see the module docstring).

    ``kind`` is int, float, bool or names (a list of tool names); only int and float knobs with a
    ``searched`` span are searched. ``default`` is the agent's own default as written (None: unset,
    the agent derives it; ``note`` says how).
    """

    name: str
    params: tuple[str, ...]
    kind: str
    unit: str
    allowed: Span | None
    searched: Span | None
    step: float
    default: Any
    source: Ref
    encode: Callable[[Any, int], dict[str, Any]]
    decode: Callable[[Mapping[str, Any], int], Any]
    write: Callable[[float], Any] = same
    number: Callable[[Any, int], float | None] = same
    note: str = ""


class Form(NamedTuple):
    """One way to write an agent's knobs: a file fragment, environment variables, a command line or
    a constructor call (``kind``: json, toml, yaml, env, cli, python; see `ctxlab.tune.forms`).

    ``paths`` maps each knob name to where its value goes: JSON/YAML keys (an int is a list index),
    a TOML key, a variable name, a flag (``("--flag",)`` or ``("-c", "key")``), or for Python
    ``(call name, keyword)``. ``fixed`` entries are written along (``compaction.enabled = true``);
    ``template`` is the text around Python calls (``{Name}`` stands for a call's arguments) or the
    command a CLI form starts with; ``text_values`` writes every value as a string (environment).
    """

    kind: str
    title: str
    source: Ref
    paths: Mapping[str, tuple[Any, ...]]
    fixed: Mapping[tuple[Any, ...], Any] = {}
    template: str = ""
    text_values: bool = False


class Constraint(NamedTuple):
    """A rule over several knobs' written values that the source enforces (checked before a setting
    is evaluated)."""

    text: str
    check: Callable[[Mapping[str, Any]], bool]


class AgentKnobs(NamedTuple):
    """One preset's knobs and snippet forms (see the module docstring)."""

    preset: str
    agent: str
    knobs: tuple[Knob, ...]
    forms: tuple[Form, ...]
    constraints: tuple[Constraint, ...] = ()
    pending: bool = False
    adds: tuple[str, ...] = ()
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


__all__ = ["AgentKnobs", "Bound", "Constraint", "Form", "Knob", "Ref", "Span", "W", "same"]
