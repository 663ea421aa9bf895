"""Sliding-window eviction (the ``evict`` tail): how many of the oldest messages a summary replaces,
the evicted share growing by tenths until the rest fits (Letta's summarizer).

Source: letta-ai/letta ``letta/services/summarizer/summarizer_sliding_window.py`` @ 56ba9c25
(``summarize_via_sliding_window``): ``messages[0]`` is the system prompt; starting from the evicted
share (``sliding_window_percentage``, 0.3), each attempt evicts 10% more of the messages (by
count, ``round(share * n)``: Python's banker's rounding, the share accumulated in floating point),
backs the cut down to the nearest assistant message at or before it, and stops once the system
prompt and the kept messages hold fewer than ``(1 - share) * context_window`` tokens. No
assistant message, a share that reached 1.0, or a cut at the last message: no cutoff (Letta then
summarizes everything).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

STEP = 0.10


def evict_cutoff(roles: Sequence[str], kept_tokens: Callable[[int], int], window: int, share: float) -> int | None:
    """The first kept index (an assistant message) of ``roles`` (``roles[0]`` the system prompt), or None.

    Args:
        roles: every message's role, the system prompt first.
        kept_tokens: tokens of the system prompt and ``messages[i:]`` for a cutoff ``i``.
        window: the agent model's context window.
        share: ``sliding_window_percentage``.
    """
    n = len(roles)
    goal = (1 - share) * window
    count: float = window
    eviction = share
    cutoff = None
    while count >= goal and eviction < 1.0:
        eviction += STEP
        cut = round(eviction * n)
        cutoff = next((i for i in range(min(cut, n - 1), 0, -1) if roles[i] == "assistant"), None)
        if cutoff is None:
            continue
        count = kept_tokens(cutoff)
    if cutoff is None or eviction >= 1.0 or cutoff >= n - 1:
        return None
    return cutoff


__all__ = ["STEP", "evict_cutoff"]
