"""Clearing a tool output but keeping its trail: the lines the conversation went back to stay.

Clearing old observations (JetBrains "The Complexity Trap"; LangChain ``ClearToolUsesEdit``;
inspect_ai ``CompactionEdit``) saves most of a context, but a bare placeholder also loses what the
agent found there. Here a cleared output keeps its *referenced* lines (`lines`): those holding a
name (path, symbol, flag, number) that a later message of the history so far also holds
(`ctxlab.strategies.mechanics.refs`), each whole (up to `LINE_CHARS`), gaps marked, so a string
the agent used keeps the line that says what it is. An earlier version kept a list of every detail
the output named (paths, identifiers, counts): it kept strings but not their lines, and on real
sessions lost to the agents' whole-message tails when the string had to come with its line
(docs/quality.md). An output that must shrink but may keep some text keeps its head and tail, with
the details of the cut middle in the omission marker (`shrink`).
"""

from __future__ import annotations

from functools import lru_cache

from ctxlab import caches
from ctxlab.messages import Message
from ctxlab.strategies.mechanics.refs import referenced_lines
from ctxlab.summarize.heuristics import details, details_between
from ctxlab.summarize.sections import DETAIL_SEPARATOR
from ctxlab.tokens import TokenCounter
from ctxlab.tokens.clip import truncate_head_tail

CLEARED = "[{name} output cleared, {chars:,} characters{trail}]"
OMITTED = "\n[... {chars:,} characters omitted{trail} ...]\n"
LINES = "[{name} output cleared to the {kept} of its {total:,} lines that later messages name]"
GAP = "[...]"
LINE_CHARS = 400


def note(name: str, text: str, omitted: tuple[int, int] | None = None) -> str:
    """The note standing for `text` (or for its `omitted` span, start and end): its size and its
    details."""
    found = details(text) if omitted is None else details_between(text, *omitted)
    trail = f"; details: {DETAIL_SEPARATOR.join(found)}" if found else ""
    if omitted is None:
        return CLEARED.format(name=name, chars=len(text), trail=trail)
    return OMITTED.format(chars=omitted[1] - omitted[0], trail=trail)


def lines(message: Message, wanted: frozenset[str], name: str) -> Message:
    """A tool result cleared to its lines that hold a name in `wanted` (whole lines up to
    `LINE_CHARS`, gaps marked), or to its bare note when none does; same id and call id, marked
    truncated."""
    text = message.text
    kept = referenced_lines(text, wanted)
    if not kept:
        return message.with_text(CLEARED.format(name=name, chars=len(text), trail=""))
    out, last = [LINES.format(name=name, kept=len(kept), total=text.count("\n") + 1)], -1
    for n, line in kept:
        if n != last + 1:
            out.append(GAP)
        out.append(line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " …")
        last = n
    return message.with_text("\n".join(out))


def shrink(message: Message, max_tokens: int, counter: TokenCounter, name: str) -> Message:
    """A tool result cut to `max_tokens` (under `counter`, message overhead included): the longest
    head and tail whose omitted middle's note still fits, else the note alone, clipped.

    A message that already fits is returned as is.
    """
    text = message.text
    if counter.count_message(message) <= max_tokens:
        return message
    lo, hi, best = 0, len(text) - 1, -1
    while lo <= hi:  # the kept length: more kept text, fewer omitted details, so cost grows with it
        keep = (lo + hi) // 2
        if _tokens(message, keep, counter) <= max_tokens:
            best, lo = keep, keep + 1
        else:
            hi = keep - 1
    return message.with_text(_cut(text, best)) if best >= 0 else _clipped_note(message, max_tokens, counter, name)


def _tokens(message: Message, keep: int, counter: TokenCounter) -> int:
    return caches.with_counter(_cut_tokens, counter, message, keep, counter)


@caches.per_conversation
# Searches over one output share their first steps whatever the budget, and a tuner's settings cut
# the same outputs again: each kept length is cut and counted once.
@lru_cache(maxsize=65536)
def _cut_tokens(message: Message, keep: int, counter: TokenCounter) -> int:
    """The tokens of `message` cut to `keep` characters around the note of its middle (`_cut`)."""
    return counter.count_message(message.with_text(_cut(message.text, keep)))


def _cut(text: str, keep: int) -> str:
    """`text` with its head and tail (`keep` characters in all) around the note of its middle."""
    head = keep // 2
    tail = keep - head
    cut = truncate_head_tail(text, keep, head, tail)
    if cut == text:
        return text
    return text[:head] + note("", text, (head, len(text) - tail)) + (text[-tail:] if tail else "")


def _clipped_note(message: Message, max_tokens: int, counter: TokenCounter, name: str) -> Message:
    """The cleared note with its details list cut from the end until the message fits (at worst
    the bare note: a window too small for it does not fit, and `fits` says so)."""
    bare = CLEARED.format(name=name, chars=len(message.text), trail="")
    lo, hi, best = len(bare), len(note(name, message.text)), -1
    while lo <= hi:
        keep = (lo + hi) // 2
        if caches.with_counter(_note_tokens, counter, message, name, keep, counter) <= max_tokens:
            best, lo = keep, keep + 1
        else:
            hi = keep - 1
    return message.with_text(bare if best < 0 else _clip(note(name, message.text), best))


@caches.per_conversation
# As `_cut_tokens`: the searches for other budgets and settings try the same lengths first.
@lru_cache(maxsize=16384)
def _note_tokens(message: Message, name: str, keep: int, counter: TokenCounter) -> int:
    """The tokens of `message` holding its cleared note cut to `keep` characters (`_clip`)."""
    return counter.count_message(message.with_text(_clip(note(name, message.text), keep)))


def _clip(full: str, keep: int) -> str:
    return full[:keep].rstrip("; ") + " …]"
