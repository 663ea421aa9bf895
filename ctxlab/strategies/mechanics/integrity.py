"""Request validity: pinned messages, orphaned tool calls and results, and their rate.

ctxlab's invariants keep the system prompt and the newest user message, and never send a tool
result without its call (or a call without its result). A faithful preset whose agent does
otherwise declares it (``breaks_tool_pairs``, ``drops_pinned``) and reports what it broke in events
(``policy.broken_tool_pairs``, ``policy.dropped_pinned``), so the comparison can count it: an
orphan tool result is a request the provider rejects (HTTP 400).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.base import CompressionResult, Event
from ctxlab.strategies.mechanics.context import pinned

BROKEN_PAIRS = "policy.broken_tool_pairs"
DROPPED_PINNED = "policy.dropped_pinned"


class Orphans(NamedTuple):
    """Ids of assistant messages whose calls go unanswered, and of results without their call."""

    calls: tuple[str, ...]
    results: tuple[str, ...]

    def __bool__(self) -> bool:
        return bool(self.calls or self.results)


def orphans(messages: Sequence[Message]) -> Orphans:
    """The messages a provider would reject: a tool result not answering a call of the assistant
    message before it, an assistant message whose calls are not all answered right after it."""
    calls, results = [], []
    open_calls: set[str] = set()
    owner: Message | None = None
    for m in messages:
        if m.role == "tool":
            if m.tool_call_id in open_calls:
                open_calls.discard(m.tool_call_id)
            else:
                results.append(m.id)
            continue
        if open_calls and owner is not None:
            calls.append(owner.id)
        open_calls, owner = {c.id for c in m.tool_calls}, m
    if open_calls and owner is not None:
        calls.append(owner.id)
    return Orphans(tuple(calls), tuple(results))


def without_orphans(messages: Sequence[Message], first: int) -> list[int]:
    """Indices from `first` on without the tool results whose call is not before them in the range
    (inspect_ai's ``trim_messages``: a tool result is kept only after the assistant message that
    called it)."""
    kept, active = [], set()
    for i in range(first, len(messages)):
        m = messages[i]
        if m.role == "assistant":
            active = {c.id for c in m.tool_calls}
        elif m.role == "tool" and m.tool_call_id not in active:
            continue
        elif m.role == "user":
            active = set()
        kept.append(i)
    return kept


def orphan_rate(results: CompressionResult | Iterable[CompressionResult]) -> float:
    """Share of results whose request a provider would reject for an orphaned call or result."""
    batch = [results] if isinstance(results, CompressionResult) else list(results)
    if not batch:
        return 0.0
    return sum(1 for r in batch if orphans(r.messages)) / len(batch)


def exceptions(inputs: Sequence[Message], outputs: Sequence[Message]) -> list[Event]:
    """Events reporting broken tool pairs and pinned messages the output does not keep whole."""
    events = []
    broken = orphans(outputs)
    if broken:
        events.append(Event(BROKEN_PAIRS, {"orphan_calls": list(broken.calls), "orphan_results": list(broken.results)}))
    whole = {m.id for m in outputs if m.mark is None}
    lost = [inputs[i].id for i in sorted(pinned(inputs)) if inputs[i].id not in whole]
    if lost:
        events.append(Event(DROPPED_PINNED, {"ids": lost}))
    return events
