"""The composable policy model: compaction policies as data over the shared mechanics.

Most agents' compaction is the same few choices: when to compact (a `Trigger`), what to keep at the
head and the tail (`mechanics.cuts`, `tails`), where a cut may fall (`mechanics.cuts`), what
becomes of the middle (drop, clear tool results with `mechanics.mask`, or summarize with
`mechanics.summary`) and where the summary goes, counted with the agent's own estimator
(``ctxlab.tokens.agent_estimators``). `Policy` (`model`) holds them as flat fields and maps them
onto typed arguments (`parts`) in one place; `compact` runs the passes (or, with
``retry="keep_less"``, the `attempts` over one `frame`, `compaction`'s loop), each one compaction
made by `apply` from the selection of a tail kind (`tails`), its summary under one cap shared by a
split turn's parts when `split_cap` writes it;
`preset` registers a named set of its defaults with its public source and, for an agent, the knobs
its users set and the snippet forms that write them (`knobs`, `conversions`); `legacy` reads specs
stored under older field names.

`orphans` and `orphan_rate` (from `mechanics.integrity`) say what faithful presets report instead
of the invariants they break: the share of requests a provider would reject for an orphaned tool
call or result.
"""

from __future__ import annotations

from ctxlab.strategies.mechanics.integrity import Orphans, orphan_rate, orphans
from ctxlab.strategies.policy.knobs import Constraint, Form, Knob, Source, Span, Tuning, W
from ctxlab.strategies.policy.model import Policy
from ctxlab.strategies.policy.preset import preset

__all__ = ["Constraint", "Form", "Knob", "Orphans", "Policy", "Source", "Span", "Tuning", "W", "orphan_rate", "orphans",
           "preset"]
