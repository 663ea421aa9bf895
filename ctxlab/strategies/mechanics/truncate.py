"""Truncating long messages: the pre-pass that cuts them before a policy fits the rest.

Some policies shorten every long message whatever the budget, then decide what to keep:

- `head_tail`: seed 003's context window guard cuts each tool result over ``maxToolResultChars``
  to its first and last characters around an omission marker (`truncate_head_tail`);
- `first_chars`: seed 000's SimpleCompressor cuts every history message over
  ``MAX_CHARS_PER_MESSAGE`` to its first characters.

A cut message keeps its id, role and call id and is marked truncated; `fit.rewrite` applies the
cuts and recounts them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from ctxlab.messages import Message
from ctxlab.tokens.clip import truncate_head_tail

Cut = Callable[[str], str]


def head_tail(max_chars: int, head_chars: int, tail_chars: int) -> Cut:
    """Keep `head_chars` and `tail_chars` of a text over `max_chars`, around the omission marker."""
    return lambda text: truncate_head_tail(text, max_chars, head_chars, tail_chars)


def first_chars(n: int) -> Cut:
    """Keep the first `n` characters."""
    return lambda text: text[:n]


def cut_long(messages: Sequence[Message], indices: Iterable[int], max_chars: int, cut: Cut) -> dict[int, Message]:
    """Cut copies of the messages at `indices` longer than `max_chars` characters (index -> copy); a
    cut that leaves the text as it was is no cut."""
    out: dict[int, Message] = {}
    for i in indices:
        text = messages[i].text
        if len(text) > max_chars and (short := cut(text)) != text:
            out[i] = messages[i].with_text(short)
    return out


def tool_results(messages: Sequence[Message]) -> list[int]:
    """Indices of the tool results (what seed 003's L1 cuts)."""
    return [i for i, m in enumerate(messages) if m.role == "tool"]
