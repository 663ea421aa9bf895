"""Clipping text to a size: head+tail cuts around an omission marker, to characters or to tokens.

Used by strategies (seed 003's tool-output truncation) and by summarizers (clipping long tool
outputs in a transcript), so it sits with the counters it measures with.
"""

from __future__ import annotations

from ctxlab.tokens.base import TokenCounter

TRUNCATION_MARKER = "\n\n... [{omitted} characters truncated] ...\n\n"


def truncate_head_tail(text: str, max_chars: int, head_chars: int = 2000, tail_chars: int = 2000) -> str:
    """Seed 003's L1 truncation: texts over `max_chars` keep head and tail around an omission marker.

    A text that head and tail already cover is returned unchanged: there is nothing to omit, and
    the marker would only lengthen it (and repeat the overlap of head and tail).
    """
    if len(text) <= max_chars or head_chars + tail_chars >= len(text):
        return text
    omitted = len(text) - head_chars - tail_chars
    tail = text[-tail_chars:] if tail_chars else ""
    return text[:head_chars] + TRUNCATION_MARKER.format(omitted=omitted) + tail


def clip_to_tokens(text: str, max_tokens: int, counter: TokenCounter, head_share: float = 0.5) -> str:
    """The longest head+tail clip of `text` (with the omission marker) that fits `max_tokens`.

    Binary search over the kept length, so the result fits under any counter, exact or estimated.
    """
    if counter.count(text) <= max_tokens:
        return text
    lo, hi, best = 0, len(text), ""
    while lo <= hi:
        keep = (lo + hi) // 2
        head = int(keep * head_share)
        candidate = truncate_head_tail(text, keep, head, keep - head) if keep < len(text) else text
        if keep == 0:
            candidate = TRUNCATION_MARKER.format(omitted=len(text)).strip()
        if counter.count(candidate) <= max_tokens:
            best, lo = candidate, keep + 1
        else:
            hi = keep - 1
    return best
