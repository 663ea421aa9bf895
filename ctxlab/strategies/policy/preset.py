"""`preset`: register a policy under a name with other defaults, its source and a one-line summary.

    PiCompaction = preset("pi", Policy, {"trigger": "reserve", "trigger_reserve": 16384, ...},
                          Source("badlogic/pi-mono", "packages/coding-agent/src/core/compaction/", "0430917"),
                          "pi-mono's compaction: keep ~20k recent tokens, summarize the rest")

The preset is an ordinary registered strategy: ``get_strategy("pi", keep=...)``, `strategy_params`,
`StrategySpec` round trips and the invariant tests work on it unchanged.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.strategies.base import BaseStrategy
from ctxlab.strategies.registry import register


class Source(NamedTuple):
    """Where a preset's behaviour comes from: repository, file(s) and the commit or version read."""

    repo: str
    path: str
    version: str
    note: str = ""

    def __str__(self) -> str:
        return f"{self.repo} {self.path} @ {self.version}" + (f" ({self.note})" if self.note else "")


def preset(name: str, base: type[BaseStrategy], defaults: Mapping[str, Any], source: Source, summary: str,
           **flags: Any) -> type[BaseStrategy]:
    """Register a frozen dataclass subclass of `base` whose fields default to `defaults`.

    Args:
        name: the strategy name.
        base: a dataclass strategy (usually `Policy`).
        defaults: new defaults for some of `base`'s fields.
        source: the public source the preset follows.
        summary: one line saying what the preset does.
        flags: class attributes (``breaks_tool_pairs=True``, ``seed_counter="pi_chars4"``).

    Raises:
        CtxlabError: a default for a field `base` does not have, or a mutable default.
    """
    fields = {f.name: f for f in dataclasses.fields(base)}  # type: ignore[arg-type]
    unknown = sorted(set(defaults) - set(fields))
    if unknown:
        raise CtxlabError(f"preset {name!r}: {base.__name__} has no field(s) {', '.join(unknown)}")
    if any(isinstance(v, list | dict | set) for v in defaults.values()):
        raise CtxlabError(f"preset {name!r}: defaults must be immutable (tuples, not lists)")
    class_name = "".join(part.capitalize() for part in name.split("_")) + "Preset"
    namespace = {"source": source, "about": summary, "__doc__": f"{summary}\n\nSource: {source}.",
                 "building_block": False, **flags}
    cls = dataclasses.make_dataclass(
        class_name, [(k, fields[k].type, dataclasses.field(default=v)) for k, v in defaults.items()],
        bases=(base,), frozen=True, namespace=namespace)
    cls.__module__ = sys._getframe(1).f_globals.get("__name__", __name__)
    return register(name)(cls)
