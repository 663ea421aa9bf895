"""`preset`: register a policy under a name with other defaults, its source and a one-line summary,
and (for an agent's preset) the knobs its users set and the snippet forms that write them.

    PI = preset("pi", Policy, {"head": "system", "tail": "recent_tokens", ...},
                Source("badlogic/pi-mono", "packages/coding-agent/src/core/compaction/", "7ddaf150"),
                "pi-mono's compaction: keep ~20k recent tokens, summarize the rest",
                agent="pi coding agent", knobs=(Knob("compaction.reserveTokens", ..., default=16384), ...),
                forms=(Form("json", "~/.pi/agent/settings.json", ...),))

A field a knob sets takes the knob's default, encoded (`ctxlab.strategies.policy.knobs`), so it is
written once, beside the knob's range; ``defaults`` holds the rest. The preset is an ordinary
registered strategy: ``get_strategy("pi", keep_tokens=...)``, `strategy_params`, `StrategySpec`
round trips and the invariant tests work on it unchanged; ``ctxlab tune`` reads its `Tuning`.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.strategies.base import BaseStrategy
from ctxlab.strategies.policy.knobs import Constraint, Form, Knob, Source, Tuning
from ctxlab.strategies.registry import register

# A knob's default must mean the same at every window: the preset's fields are fixed.
_WINDOWS = (8_000, 1_000_000)


def preset(name: str, base: type[BaseStrategy], defaults: Mapping[str, Any], source: Source, summary: str, *,
           agent: str = "", knobs: tuple[Knob, ...] = (), forms: tuple[Form, ...] = (),
           constraints: tuple[Constraint, ...] = (), untunable: str = "", **flags: Any) -> type[BaseStrategy]:
    """Register a frozen dataclass subclass of `base` whose fields default to `defaults` and to the
    defaults of `knobs`.

    Args:
        name: the strategy name.
        base: a dataclass strategy (usually `Policy`).
        defaults: new defaults for the fields of `base` no knob sets.
        source: the public source the preset follows (one version).
        summary: one line saying what the preset does.
        agent: the agent's name, as its users know it (with `knobs`).
        knobs: what its users set, each with its ranges and default (`ctxlab.tune` searches them).
        forms: how those settings are written in the agent's own terms (snippets).
        constraints: rules over several knobs the source enforces.
        untunable: why a preset of an agent has nothing its users can set.
        flags: class attributes (``breaks_tool_pairs=True``, ``seed_counter="pi_chars4"``).

    Raises:
        CtxlabError: a default for a field `base` does not have, a mutable default, a field written
            twice (in `defaults` and by a knob, or by two knobs), a knob default that depends on the
            window, or a form writing a knob the preset does not have.
    """
    fields = {f.name: f for f in dataclasses.fields(base)}  # type: ignore[arg-type]
    values = {**defaults, **_knob_defaults(name, knobs, defaults)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise CtxlabError(f"preset {name!r}: {base.__name__} has no field(s) {', '.join(unknown)}")
    if any(isinstance(v, list | dict | set) for v in values.values()):
        raise CtxlabError(f"preset {name!r}: defaults must be immutable (tuples, not lists)")
    tuning = Tuning(name, agent or name, source, knobs, forms, constraints) if knobs else None
    _check_forms(name, knobs, forms)
    class_name = "".join(part.capitalize() for part in name.split("_")) + "Preset"
    namespace = {"source": source, "about": summary, "__doc__": f"{summary}\n\nSource: {source}.",
                 "building_block": False, "tuning": tuning, "untunable": untunable, **flags}
    cls = dataclasses.make_dataclass(
        class_name, [(k, fields[k].type, dataclasses.field(default=v)) for k, v in values.items()],
        bases=(base,), frozen=True, namespace=namespace)
    cls.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)
    return register(name)(cls)


def _knob_defaults(name: str, knobs: tuple[Knob, ...], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The fields the knobs set, at the values the preset runs (each knob's default, encoded)."""
    out: dict[str, Any] = {}
    for knob in knobs:
        encoded = [knob.encode(knob.preset_value, window) for window in _WINDOWS]
        if encoded[0] != encoded[1]:
            raise CtxlabError(f"preset {name!r}: the default of {knob.name} depends on the window ({encoded})")
        twice = sorted(set(encoded[0]) & (set(out) | set(defaults)))
        if twice:
            raise CtxlabError(f"preset {name!r}: {', '.join(twice)} written twice (knob {knob.name} sets it)")
        out |= encoded[0]
    return out


def _check_forms(name: str, knobs: tuple[Knob, ...], forms: tuple[Form, ...]) -> None:
    names = {knob.name for knob in knobs}
    for form in forms:
        if set(form.paths) - names:
            raise CtxlabError(f"preset {name!r}: form {form.title!r} writes unknown knob(s) "
                              f"{', '.join(sorted(set(form.paths) - names))}")


__all__ = ["Source", "preset"]
