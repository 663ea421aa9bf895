"""Trim to the longest suffix that fits (the ``fit`` tail, and the summarizer input's cut): LangChain's
``trim_messages(strategy="last")``, re-implemented over ctxlab messages.

Follows langchain-core 1.7.2 ``langchain_core/messages/utils.py`` (``_last_max_tokens`` and
``_first_max_tokens``): an optional leading system message is kept and its tokens set aside; the
rest is reversed and the longest prefix that fits is kept (a binary search over prefix counts);
with ``allow_partial`` the next message is cut to its newest content blocks, else to its last lines
(the default splitter cuts after each newline); ``start_on`` then drops the oldest kept messages
until one of the wanted type opens the result. There is no tool-pair repair: a kept suffix may open
with tool results whose call was trimmed, exactly as LangChain returns it. The tests check the
result against langchain-core itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import accumulate

from ctxlab.messages import Message
from ctxlab.tokens import TokenCounter

Kept = list[tuple[int, Message]]  # (index in the input, the message or its partial copy)


def trim_last(messages: Sequence[Message], max_tokens: int, counter: TokenCounter, *, start_on_user: bool = True,
              include_system: bool = True, allow_partial: bool = False) -> Kept:
    """The messages LangChain's ``trim_messages`` keeps, with their input indices."""
    indexed = list(enumerate(messages))
    system: Kept = []
    if include_system and indexed and indexed[0][1].role == "system":
        system, indexed = indexed[:1], indexed[1:]
        max_tokens = max(0, max_tokens - counter.count_message(system[0][1]))
    kept = _first_max_tokens(indexed[::-1], max_tokens, counter, allow_partial, start_on_user)
    return system + kept[::-1]


def _first_max_tokens(items: Kept, max_tokens: int, counter: TokenCounter, partial: bool, start_on_user: bool) -> Kept:
    """``_first_max_tokens`` on the reversed messages (``end_on`` is the caller's ``start_on``)."""
    if not items:
        return items
    prefix = list(accumulate(counter.count_message(m) for _, m in items))
    idx = sum(1 for total in prefix if total <= max_tokens)  # longest prefix that fits (counts are >= 0)
    if partial and idx < len(items):
        cut = _partial(items[idx][1], max_tokens - (prefix[idx - 1] if idx else 0), counter)
        if cut is not None:
            items = [*items[:idx], (items[idx][0], cut)]
            idx += 1
    if start_on_user:
        while idx > 0 and items[idx - 1][1].role != "user":
            idx -= 1
    return items[:idx]


def _partial(message: Message, room: int, counter: TokenCounter) -> Message | None:
    """The newest part of `message` that fits in `room` tokens, or None (LangChain's partial step
    with ``partial_strategy="last"``)."""
    blocks = list(message.parts)[::-1] if isinstance(message.content, tuple) else None
    if blocks is not None:
        for keep in range(len(blocks) - 1, 0, -1):
            candidate = _with(message, tuple(blocks[:keep][::-1]))
            if counter.count_message(candidate) <= room:
                return candidate
        text = blocks[0] if blocks else ""  # what remains after dropping blocks: the last one
    else:
        text = message.text
    if not text:
        return None
    splits = _split_lines(text)[::-1]
    left, right = 0, len(splits)
    for _ in range(len(splits).bit_length()):
        if left >= right:
            break
        mid = (left + right + 1) // 2
        # LangChain counts the reversed lines joined, and restores their order only at the end.
        if counter.count_message(_with(message, "".join(splits[:mid]))) <= room:
            left = mid
        else:
            right = mid - 1
    return _with(message, "".join(splits[:left][::-1])) if left > 0 else None


def _split_lines(text: str) -> list[str]:
    """LangChain's default text splitter: each line keeps its newline."""
    splits = text.split("\n")
    return [s + "\n" for s in splits[:-1]] + splits[-1:]


def _with(message: Message, content: str | tuple[str, ...]) -> Message:
    return replace(message, content=content, mark="truncated", source_ids=message.source_ids or (message.id,))
