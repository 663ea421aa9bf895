"""Fitting a context into a budget by keeping the newest whole units that fit.

The seed strategies decide in two steps: first rewrite some messages whatever the budget (cut long
ones with `truncate`, mask old tool outputs with `mask`), then, measured on what that left, keep
the newest whole units that fit and drop the rest. `rewrite` applies the first step's replacements
and recounts only what changed; the functions here are the second step:

- `newest_turns`: the newest whole turns (a user message and everything up to the next) that fit,
  the system prompt kept first (`window_by_turns`); with ``every_system`` every system message,
  wherever it stands, is kept and paid first (seed 003's ``truncated.filter(m => m.role ===
  "system")``), each in its place;
- `newest_until_miss`: walk the units (tool groups) from the newest back and stop at the first that
  does not fit every limit, tokens and optionally characters (seed 000's SimpleCompressor);
- `newest_groups`: where the newest whole tool groups that fit begin (the newest one at least).

All keep tool groups whole, so no call is parted from its result.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from ctxlab.messages import Message
from ctxlab.strategies.mechanics.context import Span, system_prefix, tool_groups, turns
from ctxlab.tokens import TokenCounter

Limit = tuple[Sequence[int], int]  # a per-message cost and the room it has


def recount(counts: Sequence[int], replaced: Mapping[int, Message], counter: TokenCounter) -> list[int]:
    """`counts` with the replaced messages counted again (the others are not re-tokenized)."""
    out = list(counts)
    for i, message in replaced.items():
        out[i] = counter.count_message(message)
    return out


def rewrite(messages: Sequence[Message], counts: Sequence[int], replaced: Mapping[int, Message],
            counter: TokenCounter) -> tuple[list[Message], list[int]]:
    """The messages with `replaced` applied, and their counts."""
    return [replaced.get(i, m) for i, m in enumerate(messages)], recount(counts, replaced, counter)


def keep_newest(costs: Sequence[int], available: int) -> int:
    """The first index of the longest suffix of `costs` that fits in `available` (len if none)."""
    total = 0
    for i in range(len(costs) - 1, -1, -1):
        total += costs[i]
        if total > available:
            return i + 1
    return 0


def drop_oldest_turns(spans: Sequence[Span], counts: Sequence[int], available: int) -> int:
    """How many of the oldest `spans` (turns or groups) to drop so the rest fit in `available`."""
    return keep_newest([sum(counts[s.start:s.stop]) for s in spans], available)


def window_by_turns(messages: Sequence[Message], counts: Sequence[int], available: int) -> set[int]:
    """Indices to keep so `counts` fit `available`: the system prompt, then the newest whole turns.

    When even the newest turn does not fit, its oldest tool groups go (never splitting one), keeping
    its user message and at least its newest group.
    """
    prefix = system_prefix(messages)
    keep = set(range(prefix))
    room = available - sum(counts[:prefix])
    spans = turns(messages, prefix)
    if not spans:
        return keep
    drop = drop_oldest_turns(spans, counts, room)
    if drop < len(spans):
        return keep | set(range(spans[drop].start, len(messages)))
    return keep | _trim_newest_turn(messages, counts, spans[-1].start, room)


def _trim_newest_turn(messages: Sequence[Message], counts: Sequence[int], start: int, room: int) -> set[int]:
    """The newest turn's user message plus its newest tool groups that fit (at least one)."""
    keep = set()
    if messages[start].role == "user":
        keep.add(start)
        room -= counts[start]
        start += 1
    keep.update(range(newest_groups(messages, counts, start, room), len(messages)))
    return keep


def newest_groups(messages: Sequence[Message], counts: Sequence[int], start: int, room: int) -> int:
    """Where the kept part begins: the start of the newest whole tool groups after `start` that fit
    in `room` (the newest group at least)."""
    groups = [Span(a + start, b + start) for a, b in tool_groups(messages[start:])]
    if not groups:
        return start
    first = min(drop_oldest_turns(groups, counts, room), len(groups) - 1)
    return groups[first].start


def newest_turns(messages: Sequence[Message], counts: Sequence[int], available: int, *,
                 every_system: bool = False) -> set[int]:
    """Indices to keep so `counts` fit `available`: the system prompt (every system message with
    `every_system`), then the newest whole turns; see `window_by_turns` for a newest turn too big."""
    if not every_system:
        return window_by_turns(messages, counts, available)
    system = [i for i, m in enumerate(messages) if m.role == "system"]
    chat = [i for i, m in enumerate(messages) if m.role != "system"]
    room = available - sum(counts[i] for i in system)
    kept = window_by_turns([messages[i] for i in chat], [counts[i] for i in chat], room)
    return set(system) | {chat[j] for j in kept}


def newest_until_miss(spans: Sequence[Span], limits: Sequence[Limit], skip: Collection[int] = ()) -> set[int]:
    """Indices of the newest `spans` that fit every limit, walking from the newest back and stopping at
    the first span over any; spans starting at an index in `skip` (paid already) are passed over."""
    rooms = [room for _, room in limits]
    keep: set[int] = set()
    for start, stop in reversed(spans):
        if start in skip:
            continue
        costs = [sum(cost[start:stop]) for cost, _ in limits]
        if any(c > room for c, room in zip(costs, rooms, strict=True)):
            break
        rooms = [room - c for c, room in zip(costs, rooms, strict=True)]
        keep.update(range(start, stop))
    return keep


def dropped(keep: Collection[int], counts: Sequence[int]) -> tuple[list[int], int]:
    """The indices not in `keep`, and their tokens."""
    gone = [i for i in range(len(counts)) if i not in keep]
    return gone, sum(counts[i] for i in gone)


__all__ = ["Limit", "drop_oldest_turns", "dropped", "keep_newest", "newest_groups", "newest_turns", "newest_until_miss",
           "recount", "rewrite", "window_by_turns"]
