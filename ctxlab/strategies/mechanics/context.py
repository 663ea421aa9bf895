"""A conversation's structure: spans, tool groups, turns, the system prompt, the pinned messages.

Index ranges are half-open `Span(start, stop)` over a message tuple; costs elsewhere are
per-message token counts from `Request.counts`, so nothing here tokenizes. A summary message
(``mark="summary"``) is a user message by role but not a *real* user message: it opens no turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from ctxlab.messages import Message

_EMPTY: Mapping[int, Message] = MappingProxyType({})


class Span(NamedTuple):
    """Messages ``[start, stop)``."""

    start: int
    stop: int


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


class Selection(NamedTuple):
    """What a tail keeps of a message tuple, in indices.

    Attributes:
        keep: indices kept (verbatim, or replaced by `replaced`), ascending.
        fold: indices folded into the summary (when the middle is summarized; dropped otherwise).
        prefix: a split turn's prefix, summarized on its own (pi-mono's turn-prefix summary).
        anchor: the index the summary goes before when placement is ``cut``.
        replaced: new versions of kept messages (truncated or masked, same id).
        summary_cap: the most tokens the summary may take, when the tail sizes it.
    """

    keep: tuple[int, ...]
    fold: tuple[int, ...] = ()
    prefix: tuple[int, ...] = ()
    anchor: int | None = None
    replaced: Mapping[int, Message] = _EMPTY
    summary_cap: int | None = None


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


def after_summaries(messages: Sequence[Message], start: int) -> int:
    """The first index at or after `start` that is not a summary message (earlier compactions' summaries
    right after a kept head)."""
    while start < len(messages) and messages[start].mark == "summary":
        start += 1
    return start


def real_user(message: Message) -> bool:
    """A user message that is not a summary."""
    return message.role == "user" and message.mark != "summary"


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


def call_names(messages: Sequence[Message]) -> dict[str, str]:
    """Tool name of every call id (tool results usually carry only the id)."""
    return {c.id: c.name for m in messages for c in m.tool_calls}


def dropped_ids(inputs: Sequence[Message], outputs: Sequence[Message]) -> list[str]:
    """Ids of the inputs no output message carries."""
    present = {m.id for m in outputs}
    return [m.id for m in inputs if m.id not in present]


__all__ = ["Selection", "Span", "Usage", "after_summaries", "call_names", "dropped_ids", "newest_user", "pinned",
           "real_user", "system_prefix", "tool_groups", "turns"]
