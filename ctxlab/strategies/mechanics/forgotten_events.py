"""Forgotten events (the ``events`` tail): a rolling condensation over events, its forgotten range
snapped to manipulation indices (OpenHands' LLMSummarizingCondenser).

From OpenHands/software-agent-sdk ``openhands-sdk/openhands/sdk/context/condenser/
llm_summarizing_condenser.py`` (``_get_forgotten_events``) and ``context/view/`` (manipulation
indices). OpenHands works on events, not messages: an assistant message with `k` tool calls is `k`
ActionEvents, every other message (system prompt, user or assistant text, tool result) one event.
Manipulation indices are the event positions where events may be inserted or forgotten: batch
atomicity and tool-call matching forbid every position inside a tool exchange (an assistant
message's calls and their results), so they fall on tool-group boundaries. Thinking blocks, which
extend a unit to a whole tool loop, are not in ctxlab's messages.

The forgotten range starts at the first manipulation index at or after ``keep_first`` and ends at
the first one at or after ``len(view) - events_from_tail``, where ``events_from_tail`` is the
strictest of: ``max_size // 2 - keep_first - 1`` (too many events) and the suffix left after
removing the shortest prefix of ``events[keep_first:]`` holding more than
``total - max_tokens // 2`` tokens (too many tokens). Too many tokens is a hard requirement: when
no range can be forgotten (or it forgets under ``minimum_progress`` of the events) the condenser
resets, forgetting every event; too many events alone waits for a later turn.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate
from typing import NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.mechanics.context import tool_groups
from ctxlab.strategies.trigger import event_sizes


class Forget(NamedTuple):
    """A forgotten range of messages ``[start, stop)`` and whether it is a hard reset."""

    start: int
    stop: int
    reset: bool = False


def manipulation_indices(messages: Sequence[Message]) -> list[int]:
    """Sorted event positions where events may be forgotten or inserted (tool-group boundaries)."""
    offsets = [0, *accumulate(event_sizes(messages))]
    return sorted({offsets[g.start] for g in tool_groups(messages)} | {offsets[-1]})


def find_next(indices: Sequence[int], threshold: int) -> int | None:
    """The smallest manipulation index >= `threshold` (OpenHands ``find_next``), None if none."""
    at = bisect_left(indices, threshold)
    return indices[at] if at < len(indices) else None


def forgotten(messages: Sequence[Message], counts: Sequence[int], *, keep_first: int, max_size: int | None,
              max_tokens: int | None, min_progress: float, total: int | None = None) -> Forget | None:
    """The messages OpenHands would forget, or None when condensation waits.

    Args:
        messages: the view.
        counts: per-message tokens under the agent LLM's counter.
        keep_first: events never forgotten at the start.
        max_size: events beyond which condensation is wanted (soft); None: no event limit.
        max_tokens: tokens beyond which condensation is required (hard); None: no token limit.
        min_progress: the smallest share of the events a condensation may forget.
        total: the request's tokens (default: the sum of `counts`).
    """
    sizes = event_sizes(messages)
    n_events = sum(sizes)
    total = sum(counts) if total is None else total
    tail_options = []
    if max_size is not None and n_events > max_size:
        tail_options.append(max_size // 2 - keep_first - 1)
    hard = max_tokens is not None and total > max_tokens
    if hard and max_tokens is not None:
        tail_options.append(_tail_for_reduction(sizes, counts, keep_first, total - max_tokens // 2))
    if not tail_options:
        return None
    indices = manipulation_indices(messages)
    start = find_next(indices, keep_first)
    stop = find_next(indices, n_events - min(tail_options))
    if start is not None and stop is not None and stop - start > 0 and stop - start >= n_events * min_progress:
        return Forget(_message_at(sizes, start), _message_at(sizes, stop))
    return Forget(0, len(messages), reset=True) if hard else None


def _tail_for_reduction(sizes: Sequence[int], counts: Sequence[int], keep_first: int, reduction: int) -> int:
    """``get_suffix_length_for_token_reduction`` over ``events[keep_first:]``: the events left after
    the shortest prefix holding more than `reduction` tokens (a message's tokens on its first event)."""
    tokens = [t for size, count in zip(sizes, counts, strict=True) for t in (count, *[0] * (size - 1))][keep_first:]
    if not tokens or reduction <= 0:
        return len(tokens)
    for length, total in enumerate(accumulate(tokens), start=1):
        if total > reduction:
            return len(tokens) - length
    return 0


def _message_at(sizes: Sequence[int], event: int) -> int:
    """The message whose first event is `event` (len(messages) at the end)."""
    offsets = [0, *accumulate(sizes)]
    return offsets.index(event)
