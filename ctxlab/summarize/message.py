"""The summary message compaction inserts, and reading a summary back out of one.

The summary travels as a ``user`` message (as pi-mono sends its compaction summary): a system
message in mid-conversation is rejected or ignored by several providers (Anthropic takes one
system prompt), and an ``assistant`` message would put the summary in the model's own mouth. A
fixed header says what it is, so the model does not take it for a new request.
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxlab.messages import Message

SUMMARY_HEADER = "The conversation history before this point was compacted into the following summary:"
TURN_CONTEXT = "**Turn Context (split turn):**"
_OPEN, _CLOSE = "<summary>", "</summary>"


def summary_message(text: str, source_ids: Sequence[str], taken: set[str]) -> Message:
    """The marked summary message standing for `source_ids`, with an id not in `taken`."""
    base = f"summary@{source_ids[-1]}" if source_ids else "summary"
    msg_id, n = base, 1
    while msg_id in taken:
        n += 1
        msg_id = f"{base}#{n}"
    return Message(role="user", content=wrap(text), id=msg_id, mark="summary", source_ids=tuple(source_ids))


def wrap(text: str) -> str:
    """The summary message's content: header, then the summary in ``<summary>`` tags."""
    return f"{SUMMARY_HEADER}\n\n{_OPEN}\n{text}\n{_CLOSE}"


def unwrap(content: str) -> str:
    """The summary inside a summary message's content (the content itself if it has no tags)."""
    start, end = content.find(_OPEN), content.rfind(_CLOSE)
    if start < 0 or end < start:
        return content.removeprefix(SUMMARY_HEADER).strip()
    return content[start + len(_OPEN):end].strip()


def join_turn_context(history: str, prefix: str) -> str:
    """pi-mono's merged summary of a split turn: the history summary, a rule, the turn prefix's."""
    if not prefix:
        return history
    return f"{history or 'No prior history.'}\n\n---\n\n{TURN_CONTEXT}\n\n{prefix}"
