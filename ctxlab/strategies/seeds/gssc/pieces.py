"""Token counts and query overlaps of gssc's long texts, summed exactly from cached pieces.

gssc rebuilds a prompt of tens of kilobytes on every call, yet almost all of it was seen before:
message renderings, section headers and, in a per-turn replay, the whole previous prompt, which
comes back as the system prompt. A text is cut where a line opens with "[" (every rendered
message, section header and source label does), and each piece is counted once and cached.

The sums are exact, not estimates:

- Words: "\\n" and "[" are not word characters, so no word spans a cut, and lower-casing is
  per character (Greek final sigma looks at its neighbours, but never across a newline).
- Tokens, for tiktoken counters whose counts add up across a newline followed by a character
  that is neither whitespace nor "/" ("[" is one), as `ctxlab.tokens.chunks` explains. Other
  counters (estimators that round, Hugging Face tokenizers) count whole texts.
  tests/strategies/test_gssc_pieces.py checks both sums against whole-text counts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeGuard

from ctxlab import caches
from ctxlab.messages import Message
from ctxlab.strategies.seeds.gssc.packets import words
from ctxlab.tokens import TokenCounter
from ctxlab.tokens.chunks import SPLIT_CHARS, cut_before, parts_of
from ctxlab.tokens.exact import TiktokenCounter

Count = Callable[[str], int]

MARK = "["  # opens the lines gssc cuts before: a rendered message, a section header, a source label
# Shorter texts are counted whole: one cached lookup beats cutting them up.
MIN_CUT_CHARS = 1024
# Whole-text totals remembered, and the longest text remembered (keys are the texts themselves;
# a per-turn replay reuses a total within a few calls).
TOTAL_ENTRIES = 256
TOTAL_CHARS = 262_144


def pieces(text: str) -> list[str]:
    """`text` cut before every "[" that opens a line (each piece but the last ends in "\\n")."""
    return cut_before(text, MARK)


def share(text: str) -> None:
    """Have every tiktoken counter and the grader cut `text` into its pieces (`chunks.parts_of`).

    The reference counter counts each prompt gssc sends; cut at content-defined cuts, which the
    renderings' "[role] " heads and the cut sections shift, its chunks missed the cache for 400k
    characters per knob change, and cutting it was as long again. Its pieces recur across calls
    and settings.
    """
    if len(text) >= SPLIT_CHARS:
        parts_of(text, MARK)


def additive(counter: TokenCounter) -> TypeGuard[TiktokenCounter]:
    """Whether `counter` is a tiktoken counter whose split pattern makes piece counts add up."""
    return type(counter) is TiktokenCounter and counter.additive


def text_counter(counter: TokenCounter) -> Count:
    """``counter.count``, summed over cached pieces where that is exact: the same callable for the
    same counter, so a cache can be keyed by it (`ctxlab.strategies.seeds.gssc.compress`)."""
    if not additive(counter):
        return counter.count
    found = _TEXT_COUNTERS.get(counter)
    if found is None:
        found = _TEXT_COUNTERS[counter] = functools.partial(_count, counter)
    return found


_TEXT_COUNTERS: dict[TokenCounter, Count] = {}  # one entry per tiktoken counter (a handful per process)


def message_counter(counter: TokenCounter, message_id: str) -> Count:
    """Tokens of a system message with id `message_id` holding a text (``counter.count_message``).

    A tiktoken counter's message is its text plus a fixed overhead (the chat format's), so that
    count sums pieces too.
    """
    if additive(counter):
        shell = counter.count_message(Message("system", "", id=message_id))
        return lambda text: shell + _count(counter, text)
    return lambda text: counter.count_message(Message("system", text, id=message_id))


def overlap(content: str, query: str) -> int:
    """How many words of `content` are words of `query` (repeats count)."""
    if len(content) < MIN_CUT_CHARS:
        return _overlap(content, query)
    if len(content) > TOTAL_CHARS:
        return _pieces_overlap(content, query)
    return _whole_overlap(content, query)


@caches.per_conversation
@functools.lru_cache(maxsize=TOTAL_ENTRIES)
def _whole_overlap(content: str, query: str) -> int:
    # Whole contents too: the previous prompt is the next turn's system prompt.
    return _pieces_overlap(content, query)


def _pieces_overlap(content: str, query: str) -> int:
    return sum(_overlap(piece, query) for piece in pieces(content))


@caches.per_conversation
@functools.lru_cache(maxsize=16384)
def _overlap(piece: str, query: str) -> int:
    # Cached per query: the newest user message stays the query for many turns and budgets.
    wanted = _wanted(query)
    return sum(1 for w in words(piece) if w in wanted)


@caches.per_conversation
@functools.lru_cache(maxsize=256)
def _wanted(query: str) -> frozenset[str]:
    return frozenset(words(query))


def _count(counter: TokenCounter, text: str) -> int:
    if len(text) < MIN_CUT_CHARS:
        return counter.count(text)
    if len(text) > TOTAL_CHARS:
        return sum(map(counter.count, pieces(text)))
    # Whole texts are remembered too: a prompt is counted as the context, then as the message,
    # and comes back as the next turn's system prompt (the same string object, hashed once).
    key = (counter.name, text)
    total = _TOTALS.get(key)
    if total is None:
        if len(_TOTALS) >= TOTAL_ENTRIES:
            for old in list(_TOTALS)[:TOTAL_ENTRIES // 2]:
                del _TOTALS[old]
        total = _TOTALS[key] = sum(map(counter.count, pieces(text)))
    return total


_TOTALS: dict[tuple[str, str], int] = caches.per_conversation({})
