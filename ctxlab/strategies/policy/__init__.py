"""The composable policy model: compaction policies as data over shared, pure mechanics.

Most agents' compaction is the same few choices: when to compact (`window`), what to keep at the
head and the tail (`cuts`, `tails`), where a cut may fall (`cuts`), what becomes of the middle
(drop, clear tool results with `mask`, or summarize with `summary`) and where the summary goes,
counted with the agent's own estimator (``ctxlab.tokens.agent_estimators``). `Policy` composes
them; `preset` registers a named set of its parameters with its public source. Mechanics unique to
one agent live in their own module here (`lc_trim`, `handoff`, `events`).

The seed strategies `observation_masking`, `window_guard` and `sliding_window` are expressed on
mechanics of their own shape: rewrite first whatever the budget (`truncate` long messages, mask old
outputs with `mask.mask_old_turns`), then keep the newest whole units that fit (`fit`), within
`window.reserved_budget`. Their modules map their parameters onto these functions.

`integrity` holds what faithful presets report instead of the invariants they break, and
`orphan_rate`, the share of requests a provider would reject for an orphaned tool call or result.
"""

from __future__ import annotations

from ctxlab.strategies.policy.integrity import Orphans, orphan_rate, orphans
from ctxlab.strategies.policy.model import Policy
from ctxlab.strategies.policy.preset import Source, preset

__all__ = ["Orphans", "Policy", "Source", "orphan_rate", "orphans", "preset"]
