"""Hand-off (the ``user_messages`` tail): the real user messages, newest first, up to a token cap,
kept beside a summary (Codex's compaction).

From openai/codex ``codex-rs/core/src/compact.rs`` @ 0100b103 (``build_compacted_history_with_limit``):
walk the user messages from the newest, keep each one whose ``approx_token_count`` fits in what
remains of ``COMPACT_USER_MESSAGE_MAX_TOKENS`` (20,000), truncate the one that overflows to the
remainder and stop; the kept messages go back in their original order. Summary messages are not
user messages (``is_summary_message``). Truncation is ``truncate_text(Tokens(n))``
(``codex-rs/utils/string/src/truncate.rs`` @ b24d7f3c): the first ``2n`` and last ``2n`` bytes,
cut at character boundaries, around ``…<k> tokens truncated…``.

ctxlab pins the newest user message whole: it counts against the cap, but is never truncated
(Codex would truncate it when it alone exceeds the cap).
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlab.messages import Message

BYTES_PER_TOKEN = 4


def truncate_tokens(text: str, max_tokens: int) -> str:
    """Codex ``truncate_middle_with_token_budget``: `text` within about ``4 * max_tokens`` bytes."""
    data = text.encode("utf-8", "surrogatepass")
    max_bytes = max_tokens * BYTES_PER_TOKEN
    if not text or (max_tokens > 0 and len(data) <= max_bytes):
        return text
    if max_bytes <= 0:
        return _marker(len(data))
    left, right = max_bytes // 2, max_bytes - max_bytes // 2
    head = tail = 0  # characters kept at each end
    offset = 0
    for ch in text:
        offset += len(ch.encode("utf-8", "surrogatepass"))
        if offset > left:
            break
        head += 1
    offset = len(data)
    for ch in reversed(text[head:]):
        offset -= len(ch.encode("utf-8", "surrogatepass"))
        if offset < len(data) - right:
            break
        tail += 1
    return text[:head] + _marker(len(data) - max_bytes) + text[len(text) - tail:]


def _marker(removed_bytes: int) -> str:
    return f"…{-(-removed_bytes // BYTES_PER_TOKEN)} tokens truncated…"


def user_messages(messages: Sequence[Message], start: int, counts: Sequence[int], cap: int,
                  newest: int | None) -> tuple[list[int], dict[int, Message]]:
    """The user messages Codex carries over (indices, ascending) and the one it truncated.

    Args:
        messages: the conversation.
        start: first index that may be carried (after the system prompt).
        counts: per-message ``approx_token_count``.
        cap: ``COMPACT_USER_MESSAGE_MAX_TOKENS``.
        newest: the pinned newest user message, kept whole whatever its size.
    """
    users = [i for i in range(start, len(messages)) if messages[i].role == "user" and messages[i].mark != "summary"]
    selected: list[int] = []
    replaced: dict[int, Message] = {}
    remaining = cap
    for i in reversed(users):
        if remaining <= 0:
            break
        if counts[i] <= remaining or i == newest:
            selected.append(i)
            remaining -= counts[i]
            continue
        selected.append(i)
        replaced[i] = messages[i].with_text(truncate_tokens(messages[i].text, remaining))
        break
    return sorted(selected), replaced
