"""Keeping the old tool outputs a learned model expects the agent to need, out of a compaction's fold.

`budget.fit_budget` folds the oldest tool groups into the summary by recency alone. With a
`Rescue`, the outputs before the cut are ranked by the model's probability of need per token
(`NeedModel`, with `PRIOR` tokens added so a tiny output does not win on its size alone), and the
best are kept in place, within `Rescue.share` of the target's tokens and of the event limit's
events: each rescued output whole, the other outputs of its tool group cleared to the lines later
messages name (`trail.lines`), the call that asked for them kept too, so no call is parted from its
result. Everything else folds as before. The rescued events are taken from the newest events the
rule keeps (the kept part still holds at most `budget.EVENTS_KEPT` of the limit), so the policy
compacts as often as `recommended` does: the model trades the oldest of the newest events for the
old outputs it ranks highest. When the budget tail clears old outputs to their lines (step 1), the
model also decides the order: least needed per token first (`clearing_order`).

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
from ctxlab.strategies.trigger import event_sizes
from ctxlab.tokens import TokenCounter

PRIOR = 200  # tokens added to an output's size when ranking by need per token


class Rescue(NamedTuple):
    """The model that ranks old outputs and the share of the target rescued outputs may take."""

    model: NeedModel
    share: float
    clear: bool = True


class Rescued(NamedTuple):
    """Messages kept out of the fold (indices), their replacements, their tokens and their events."""

    keep: frozenset[int]
    replaced: dict[int, Message]
    tokens: int
    events: int = 0


def rescue_before(messages: Sequence[Message], counts: Sequence[int], counter: TokenCounter, names: dict[str, str],
                  span: Span, target: int, events: int, rescue: Rescue) -> Rescued:
    """The tool groups of ``messages[span]`` kept out of the fold (see the module docstring); `events`
    is the event limit (0: none)."""
    items = [i for i in range(*span) if messages[i].role == "tool"]
    allowance, most = int(rescue.share * target), int(rescue.share * events) if events else len(messages)
    if not items or allowance <= 0 or most <= 0:
        return Rescued(frozenset(), {}, 0)
    scores = rescue.model.predict(item_features(messages, counts, items))
    group = {i: Span(g.start + span.start, g.stop + span.start) for g in tool_groups(messages[span.start:span.stop])
             for i in range(g.start + span.start, g.stop + span.start)}
    last = last_named(messages)
    sizes = event_sizes(messages)
    keep: set[int] = set()
    replaced: dict[int, Message] = {}
    spent = taken = 0
    for i, _ in sorted(zip(items, scores, strict=True), key=lambda pair: -pair[1] / (counts[pair[0]] + PRIOR)):
        span_i = range(*group[i])
        if i in keep or taken + sum(sizes[k] for k in span_i) > most:
            continue
        parts = {k: _cleared(messages, counts, counter, names, last, k) for k in span_i
                 if k != i and messages[k].role == "tool"}
        cost = sum(counter.count_message(parts[k]) if k in parts else counts[k] for k in span_i)
        if spent + cost <= allowance:
            spent, taken = spent + cost, taken + sum(sizes[k] for k in span_i)
            keep.update(span_i)
            replaced.update({k: m for k, m in parts.items() if m is not messages[k]})
    return Rescued(frozenset(keep), replaced, spent, taken)


def clearing_order(messages: Sequence[Message], counts: Sequence[int], candidates: list[int],
                   rescue: Rescue) -> list[int]:
    """`candidates` (tool outputs to clear) least needed per token first, by the model."""
    if not candidates or not rescue.clear:
        return candidates
    scores = rescue.model.predict(item_features(messages, counts, candidates))
    return [i for _, i in sorted(zip((p / (counts[i] + PRIOR) for p, i in zip(scores, candidates, strict=True)),
                                     candidates, strict=True))]


def _cleared(messages: Sequence[Message], counts: Sequence[int], counter: TokenCounter, names: dict[str, str],
             last: dict[str, int], k: int) -> Message:
    """Output `k` cleared to its referenced lines, when that is smaller (an output already cut stays)."""
    message = messages[k]
    if message.mark is not None:
        return message
    cleared = trail.lines(message, named_later(messages, k, last), names.get(message.tool_call_id or "", "tool"))
    return cleared if counter.count_message(cleared) < counts[k] else message


__all__ = ["PRIOR", "Rescue", "Rescued", "clearing_order", "rescue_before"]
