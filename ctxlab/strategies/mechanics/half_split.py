"""Half-budget split (the ``history_half`` tail): where a history is split so that the kept tail
stays under half the budget, recursively, and how much of the head the summarizer reads (Aider's
``summarize_real``).

Source: Aider-AI/aider ``aider/history.py`` @ 19a78641 (``ChatSummary.summarize_real``): a history
of at most 4 messages, or a recursion deeper than 3, is summarized whole; otherwise the tail is
the newest messages that stay under half the budget (strictly), the split moves back until the
head ends with an assistant message, and a split at 4 or before summarizes everything. The head is
read only as far as the weak model's input limit less 512 tokens; what lies past it is lost.

Aider's history has no tool messages; here a tool exchange belongs with the assistant message that
made the calls, so a head never ends between a call and its results.
"""

from __future__ import annotations

from collections.abc import Sequence

MIN_SPLIT = 4
MAX_DEPTH = 3
RESERVE = 512  # model_max_input_tokens -= 512
UNKNOWN_INPUT = 4096  # the weak model's input limit when its metadata has none


def half_split(sizes: Sequence[int], roles: Sequence[str], max_tokens: int, depth: int) -> int:
    """The split index of a history (``sizes``, ``roles``) over the budget; 0: summarize all of it."""
    n = len(sizes)
    if n <= MIN_SPLIT or depth > MAX_DEPTH:
        return 0
    half, tail, split = max_tokens // 2, 0, n
    for i in range(n - 1, -1, -1):
        if tail + sizes[i] >= half:
            break
        tail += sizes[i]
        split = i
    while split > 1 and not _ends_exchange(roles, split):
        split -= 1
    return 0 if split <= MIN_SPLIT else split


def _ends_exchange(roles: Sequence[str], split: int) -> bool:
    """The head ``[:split]`` ends with an assistant message whose tool results (if any) are in it."""
    return roles[split - 1] == "assistant" and (split == len(roles) or roles[split] != "tool")


def head_read(sizes: Sequence[int], limit: int) -> int:
    """How many leading messages the summarizer reads: while their running total stays within `limit`."""
    total = 0
    for i, size in enumerate(sizes):
        total += size
        if total > limit:
            return i
    return len(sizes)


__all__ = ["MAX_DEPTH", "MIN_SPLIT", "RESERVE", "UNKNOWN_INPUT", "half_split", "head_read"]
