"""Exact counting of long texts as a sum of cached line chunks.

Strategies emit new text made mostly of old text: a structured prompt re-renders the history, a
summary quotes lines of tool output, a truncation keeps the head of a message, and per-turn
replay builds nearly the same prompt again before every model call. Tokenizing each such text
whole costs more than tokenizing the conversation itself; cut into chunks that recur, most of it
is a cache hit instead (a per-turn replay of the bundled data tokenizes 24 M characters instead
of 134 M).

The cut must not change the count. tiktoken encodes each match of its split pattern on its own,
so the count of a text is the sum over those matches, and counts add up across any cut no match
crosses. For the patterns in `ADDITIVE_PATTERNS`, a cut right after a newline and before a
character that is neither whitespace nor "/", or before spaces and tabs that such a character
ends (an indented line: pretty JSON, code, numbered file listings), is such a cut:

- the only rules that can match a newline (a whitespace run ending in newlines; punctuation
  followed by newlines, or by "/" in o200k) stop before such a character exactly as they stop
  at the end of the text; before spaces and tabs they stop too, as the run that follows holds no
  other newline (a whitespace run ending in a newline is tried before the other whitespace rules,
  and ends at the last newline it can reach);
- letter runs may open with one non-letter, but never with a newline;
- the lookahead ``\\s+(?!\\S)`` and cl100k's ``\\s++$`` are never the rule that matches a run
  ending in a newline, and no rule looks behind, so the matches after the cut are the same as
  in the text after the cut alone.

tests/tokens/test_chunks.py checks the sums against whole-text counts on every line break of the
bundled data and on generated text. Other counters (estimators that round, Hugging Face
tokenizers, other tiktoken patterns) count whole texts.

Chunks are content-defined (whether a safe cut is taken depends only on the characters just
before it, as in rsync or restic), so the same run of lines is cut the same way wherever it
appears in a new text. A strategy that built a text from parts it knows recur (gssc's rendered
messages and sections) can say so with `parts_of`: that text is then cut into those parts, so the
counters and the grader look up parts seen before instead of cutting it anew.
"""

from __future__ import annotations

import re
import zlib
from functools import lru_cache
from typing import Any

from ctxlab import caches

ADDITIVE_PATTERNS = frozenset({
    # o200k_base
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
    r"""|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?"""
    r"""|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # cl100k_base
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]"""
    r"""|\s+(?!\S)|\s""",
})
# Shorter texts are tokenized whole: the chunk bookkeeping would cost more than it saves.
SPLIT_CHARS = 2048
SAFE_CUT = re.compile(r"\n(?=[^\s/]|[ \t]+\S)")
_MIN_CHUNK = 256
_WINDOW = 24  # characters before a cut that decide whether to take it
_ONE_IN = 8  # about one safe cut in this many is taken: chunks of a few hundred characters


def additive(encoding: Any) -> bool:
    """Whether a tiktoken `Encoding`'s counts add up across `SAFE_CUT`s (its split pattern is one
    of those checked above)."""
    return getattr(encoding, "_pat_str", None) in ADDITIVE_PATTERNS


# Texts a strategy built from known parts (`parts_of`); read right after, by the reference counter
# and the grader of the call that sends the text, so a few are enough.
_PARTS_ENTRIES = 64
_PARTS: dict[str, tuple[str, ...]] = caches.per_conversation({})


def cut_before(text: str, mark: str) -> list[str]:
    """`text` cut before every line that opens with `mark` (each part but the last ends in "\\n")."""
    parts = text.split("\n" + mark)
    if len(parts) == 1:
        return parts
    return [parts[0] + "\n", *[mark + p + "\n" for p in parts[1:-1]], mark + parts[-1]]


def parts_of(text: str, mark: str) -> None:
    """Cut `text` before every line that opens with `mark` from now on (`line_chunks`), instead of
    at content-defined cuts.

    Raises:
        ValueError: a line that opens with `mark` is not always a safe cut.
    """
    if not SAFE_CUT.match("\n" + mark):
        raise ValueError(f"a line opening with {mark!r} is not a safe cut")
    parts = cut_before(text, mark)
    if len(parts) > 1:
        if len(_PARTS) >= _PARTS_ENTRIES:
            del _PARTS[next(iter(_PARTS))]
        _PARTS[text] = tuple(parts)


def line_chunks(text: str) -> tuple[str, ...]:
    """`text` cut where `parts_of` said, else at content-defined safe cuts (one
    piece when it has none)."""
    known = _PARTS.get(text)
    return known if known is not None else _content_chunks(text)


@caches.per_conversation
# A new text is cut once to be counted and once more to be graded (`ctxlab.metrics.held`).
@lru_cache(maxsize=64)
def _content_chunks(text: str) -> tuple[str, ...]:
    chunks, start = [], 0
    match = SAFE_CUT.search(text, _MIN_CHUNK)
    while match is not None:
        end = match.end()
        if _fingerprint(text[end - _WINDOW:end]) % _ONE_IN == 0:
            chunks.append(text[start:end])
            start = end
            # no cut closer than _MIN_CHUNK to the last: the next one ends at start + _MIN_CHUNK or later
            match = SAFE_CUT.search(text, start + _MIN_CHUNK - 1)
        else:
            match = SAFE_CUT.search(text, end)
    chunks.append(text[start:])
    return tuple(chunks)


def _fingerprint(window: str) -> int:
    # crc32, not hash(): the same cuts in every process, so timings repeat from run to run.
    return zlib.crc32(window.encode("utf-8", "surrogatepass"))
