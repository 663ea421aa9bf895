"""Keeping the old tool outputs a learned model expects the agent to need, out of a compaction's fold.

`budget.fit_budget` folds the oldest tool groups into the summary by recency alone. With a
`Rescue`, the outputs before the cut are ranked by the model's probability of need per token
(`NeedModel`, with `PRIOR` tokens added so a tiny output does not win on its size alone), and the
best are kept in place, within `Rescue.share` of the target: each rescued output whole, the other
outputs of its tool group cleared to the lines later messages name (`trail.lines`), the call that
asked for them kept too, so no call is parted from its result. Everything else folds as before.

The ranking reads only the messages handed to the policy (`need.item_features`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.mechanics import trail
from ctxlab.strategies.mechanics.context import Span, tool_groups
from ctxlab.strategies.mechanics.need import item_features
from ctxlab.strategies.mechanics.need_model import NeedModel
from ctxlab.strategies.mechanics.refs import last_named, named_later
from ctxlab.tokens import TokenCounter

PRIOR = 200  # tokens added to an output's size when ranking by need per token


class Rescue(NamedTuple):
    """The model that ranks old outputs and the share of the target rescued outputs may take."""

    model: NeedModel
    share: float


class Rescued(NamedTuple):
    """Messages kept out of the fold (indices), their replacements and their tokens."""

    keep: frozenset[int]
    replaced: dict[int, Message]
    tokens: int


def rescue_before(messages: Sequence[Message], counts: Sequence[int], counter: TokenCounter, names: dict[str, str],
                  span: Span, target: int, rescue: Rescue) -> Rescued:
    """The tool groups of ``messages[span]`` kept out of the fold (see the module docstring)."""
    items = [i for i in range(*span) if messages[i].role == "tool"]
    allowance = int(rescue.share * target)
    if not items or allowance <= 0:
        return Rescued(frozenset(), {}, 0)
    scores = rescue.model.predict(item_features(messages, counts, items))
    group = {i: Span(g.start + span.start, g.stop + span.start) for g in tool_groups(messages[span.start:span.stop])
             for i in range(g.start + span.start, g.stop + span.start)}
    last = last_named(messages)
    keep: set[int] = set()
    replaced: dict[int, Message] = {}
    spent = 0
    for i, _ in sorted(zip(items, scores, strict=True), key=lambda pair: -pair[1] / (counts[pair[0]] + PRIOR)):
        if i in keep:
            continue
        parts = {k: _cleared(messages, counts, counter, names, last, k) for k in range(*group[i])
                 if k != i and messages[k].role == "tool"}
        cost = sum(counter.count_message(parts[k]) if k in parts else counts[k] for k in range(*group[i]))
        if spent + cost <= allowance:
            spent += cost
            keep.update(range(*group[i]))
            replaced.update({k: m for k, m in parts.items() if m is not messages[k]})
    return Rescued(frozenset(keep), replaced, spent)


def _cleared(messages: Sequence[Message], counts: Sequence[int], counter: TokenCounter, names: dict[str, str],
             last: dict[str, int], k: int) -> Message:
    """Output `k` cleared to its referenced lines, when that is smaller (an output already cut stays)."""
    message = messages[k]
    if message.mark is not None:
        return message
    cleared = trail.lines(message, named_later(messages, k, last), names.get(message.tool_call_id or "", "tool"))
    return cleared if counter.count_message(cleared) < counts[k] else message


__all__ = ["PRIOR", "Rescue", "Rescued", "rescue_before"]
