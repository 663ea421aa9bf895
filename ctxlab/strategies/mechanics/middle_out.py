"""Middle-out removal: tool responses taken out of the summarizer's input from the middle outward,
progressively, until it fits (goose's compaction).

Source: block/goose ``crates/goose/src/context_mgmt/mod.rs`` @ 331a8429 (``do_compact``,
``filter_tool_responses``): when the summarization request exceeds the summarizer's context, it is
retried without 10%, 20%, 50%, then 100% of the messages holding a tool response
(``max(1, n * percent / 100)`` of them), taken from the middle outward: ``middle - 1``, ``middle``,
``middle - 2``, ``middle + 1``... (``middle = n // 2``). Still too long: goose gives up.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlab.messages import Message
from ctxlab.tokens import TokenCounter

PERCENTS = (0, 10, 20, 50, 100)


def middle_out(indices: Sequence[int], percent: int) -> list[int]:
    """The `indices` removed at `percent`, in the order goose picks them."""
    if percent == 0 or not indices:
        return []
    count = max(1, len(indices) * percent // 100)
    middle = len(indices) // 2
    removed = []
    for i in range(count):
        offset = i // 2
        if i % 2 == 0 and middle > offset:
            removed.append(indices[middle - offset - 1])
        elif i % 2 == 1 and middle + offset < len(indices):
            removed.append(indices[middle + offset])
    return removed


def fit_input(messages: Sequence[Message], limit: int, counter: TokenCounter) -> tuple[list[Message], int]:
    """The summarizer's input at the first removal level within `limit` tokens, and that level (the
    100% level when none fits: goose fails there, ctxlab summarizes what is left)."""
    tools = [i for i, m in enumerate(messages) if m.role == "tool"]
    for percent in PERCENTS:
        gone = set(middle_out(tools, percent))
        kept = [m for i, m in enumerate(messages) if i not in gone]
        if sum(counter.count_message(m) for m in kept) <= limit:
            break
    return kept, percent


__all__ = ["PERCENTS", "fit_input", "middle_out"]
