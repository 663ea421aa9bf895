"""Small pure functions that strategies compose (pi-mono style: pure mechanics, thin strategies).

The text clipping pieces (`truncate_head_tail`, `clip_to_tokens`) live in `ctxlab.tokens.clip`,
because summarizers use them too; they are re-exported here.

Index ranges are half-open `Span(start, stop)` over a message tuple; costs are per-message token
counts from `Request.counts`, so nothing here re-tokenizes.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import accumulate
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.tokens.clip import TRUNCATION_MARKER, clip_to_tokens, truncate_head_tail


class Span(NamedTuple):
    """Messages ``[start, stop)``."""

    start: int
    stop: int


class CutPoint(NamedTuple):
    """Where to cut: keep ``messages[index:]``; `turn_start` is the user message that opens the
    turn containing `index` (== index unless the cut splits a turn)."""

    index: int  # type: ignore[assignment]  # a field named index shadows tuple.index, on purpose
    turn_start: int

    @property
    def splits_turn(self) -> bool:
        return self.turn_start != self.index


class Usage(NamedTuple):
    """Context usage against a budget (seed 004's ContextUsage)."""

    used: int
    budget: int

    @property
    def percent(self) -> float:
        return self.used / self.budget if self.budget else float("inf")

    @property
    def remaining(self) -> int:
        return self.budget - self.used


def tool_groups(messages: Sequence[Message]) -> list[Span]:
    """Atomic units: an assistant message with tool calls plus the results answering it (a batch of
    parallel calls is one unit); every other message is a unit of its own."""
    groups, i, n = [], 0, len(messages)
    while i < n:
        stop = i + 1
        if messages[i].tool_calls:
            ids = {c.id for c in messages[i].tool_calls}
            while stop < n and messages[stop].role == "tool" and messages[stop].tool_call_id in ids:
                stop += 1
        groups.append(Span(i, stop))
        i = stop
    return groups


def system_prefix(messages: Sequence[Message]) -> int:
    """How many leading messages are the system prompt."""
    n = 0
    while n < len(messages) and messages[n].role == "system":
        n += 1
    return n


def newest_user(messages: Sequence[Message]) -> int | None:
    """Index of the newest user message, if any."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            return i
    return None


def pinned(messages: Sequence[Message]) -> set[int]:
    """Indices every strategy keeps: the system prompt and the newest user message."""
    keep = set(range(system_prefix(messages)))
    user = newest_user(messages)
    if user is not None:
        keep.add(user)
    return keep


def turns(messages: Sequence[Message], start: int = 0) -> list[Span]:
    """Turns after `start`: each opens at a user message and runs to the next one (assistant replies
    and tool exchanges included); messages before the first user message form a turn of their own."""
    bounds = [i for i in range(start, len(messages)) if messages[i].role == "user"]
    if not bounds or bounds[0] != start:
        bounds.insert(0, start)
    return [Span(a, b) for a, b in zip(bounds, [*bounds[1:], len(messages)], strict=False) if a < b]


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


def find_cut_point(messages: Sequence[Message], counts: Sequence[int], keep_tokens: int,
                   start: int = 0) -> CutPoint:
    """pi-mono's findCutPoint: walk back from the newest message until `keep_tokens` are kept, then
    move to a valid cut (never a tool result, so no call is split from its result).

    Returns the cut and the start of the turn it falls in; keeps everything after `start` when the
    whole tail is smaller than `keep_tokens`.
    """
    suffix = list(accumulate(reversed(counts[start:])))
    index = start
    for back, total in enumerate(suffix):
        if total >= keep_tokens:
            index = len(counts) - 1 - back
            break
    # Inside a tool exchange: back up to the assistant message that made the calls, so the
    # exchange stays whole (going forward could leave nothing recent when it is the newest one).
    while index > start and messages[index].role == "tool":
        index -= 1
    turn_start = index
    while turn_start > start and messages[turn_start].role != "user":
        turn_start -= 1
    return CutPoint(index, turn_start)


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
    groups = [Span(a + start, b + start) for a, b in tool_groups(messages[start:])]
    if groups:
        first = min(drop_oldest_turns(groups, counts, room), len(groups) - 1)
        keep.update(range(groups[first].start, len(messages)))
    return keep


def call_names(messages: Sequence[Message]) -> dict[str, str]:
    """Tool name of every call id (tool results usually carry only the id)."""
    return {c.id: c.name for m in messages for c in m.tool_calls}


__all__ = ["TRUNCATION_MARKER", "CutPoint", "Span", "Usage", "call_names", "clip_to_tokens", "drop_oldest_turns",
           "find_cut_point", "keep_newest", "newest_user", "pinned", "system_prefix", "tool_groups", "truncate_head_tail",
           "turns", "window_by_turns"]
