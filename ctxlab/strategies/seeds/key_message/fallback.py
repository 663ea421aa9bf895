"""Seed 004's over-budget fallbacks (超预算兜底) for `key_message`, as pure text functions.

Stage 1 trims tool results to a preview (tool name + status + head and tail lines); stage 2 trims
overlong user/assistant texts to their first paragraph and key bullets, or to their first sentence
and a conclusion sentence; stage 3 keeps the last K rounds (`last_rounds_start`). In loop mode the
current tool loop (`loop_start`) is never compressed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ctxlab import caches
from ctxlab.messages import Message
from ctxlab.strategies.mechanics import context
from ctxlab.strategies.seeds.key_message.scoring import content_bonus

_ERROR = re.compile(r"\b(?:error|exception|traceback|failed|failure|fatal)\b", re.IGNORECASE)
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])|\n+")
_CONCLUSION = re.compile(r"conclusion|in summary|summary|tl;dr|overall|结论|总结|综上|总之", re.IGNORECASE)
MAX_BULLETS = 5


def tool_status(text: str) -> str:
    """``error`` when the output's opening or closing lines mention a failure, else ``ok``."""
    return "error" if _ERROR.search(text[:2000]) or _ERROR.search(text[-500:]) else "ok"


def _head_lines(lines: Sequence[str], max_chars: int) -> list[str]:
    """Leading whole lines within `max_chars` (the first line clipped when it alone is longer)."""
    kept, used = [], 0
    for line in lines:
        if used + len(line) + 1 > max_chars:
            break
        kept.append(line)
        used += len(line) + 1
    return kept or [lines[0][:max_chars]] if lines else []


@caches.per_conversation
# Every window over its stage compresses the same tool results again.
@functools.lru_cache(maxsize=16384)
def tool_preview(text: str, tool_name: str, preview_chars: int) -> str | None:
    """A preview of a tool result: a header line, then head and tail lines within `preview_chars`.

    Returns None when the preview would not be shorter than the text (cached per text, name, size).
    """
    lines = text.splitlines()
    half = max(preview_chars // 2, 1)
    head = _head_lines(lines, half)
    tail = list(reversed(_head_lines([ln[-half:] for ln in reversed(lines[len(head):])], half)))
    omitted = len(text) - sum(len(ln) + 1 for ln in head + tail)
    parts = [f"[tool result preview, truncated] tool={tool_name or 'unknown'} status={tool_status(text)} "
             f"original={len(text)} chars, {len(lines)} lines", *head]
    if omitted > 0:
        parts.append(f"... [{omitted} characters omitted] ...")
    parts.extend(tail)
    preview = "\n".join(parts)
    return preview if len(preview) < len(text) else None


def _sentences(paragraph: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(paragraph) if s.strip()]


def _conclusion(text: str) -> str | None:
    """The last sentence that announces a conclusion or summary."""
    found = [s for s in _sentences(text) if _CONCLUSION.search(s)]
    return found[-1] if found else None


def _key_bullets(paragraphs: Sequence[str]) -> list[str]:
    """Bullet lines after the first paragraph, those with paths/code/numbers/keywords first."""
    bullets = [ln.strip() for p in paragraphs for ln in p.splitlines() if _BULLET.match(ln)]
    key = [b for b in bullets if content_bonus(b) > 0]
    return (key or bullets)[:MAX_BULLETS]


def trim_text(text: str, max_chars: int) -> str | None:
    """The seed's text trim: first paragraph + key bullets, else first sentence + conclusion.

    Returns None when the text is not over `max_chars` or trimming would not shorten it.
    """
    if len(text) <= max_chars:
        return None
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    conclusion = _conclusion(text)
    first = paragraphs[0] if paragraphs else text
    pieces = [first, *_key_bullets(paragraphs[1:])]
    if conclusion and conclusion not in "\n".join(pieces):
        pieces.append(conclusion)
    body = "\n".join(pieces)
    if len(body) > max_chars:
        sentences = _sentences(first)
        body = "\n".join(p for p in (sentences[0] if sentences else first, conclusion) if p)[:max_chars]
    trimmed = f"{body}\n[... trimmed, kept {len(body)} of {len(text)} characters]"
    return trimmed if len(trimmed) < len(text) else None


def last_rounds_start(messages: Sequence[Message], start: int, rounds: int) -> int:
    """Index where the last `rounds` rounds begin (a round opens at a user message)."""
    spans = context.turns(messages, start)
    return spans[-rounds].start if 0 < rounds < len(spans) else start


def loop_start(messages: Sequence[Message]) -> int:
    """Start of the current tool loop: the trailing run of tool-call messages and their results after
    the newest user message (``len(messages)`` when the conversation is not inside a loop)."""
    user = context.newest_user(messages)
    floor = user + 1 if user is not None else context.system_prefix(messages)
    index = len(messages)
    while index > floor and (messages[index - 1].role == "tool" or messages[index - 1].tool_calls):
        index -= 1
    return index
