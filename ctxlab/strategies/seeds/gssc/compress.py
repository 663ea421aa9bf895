"""Compress: the seed's TruncateCompressor. Sections are cut in priority order, [Context] first and
[Role & Policies] last: each is first halved (kept to 50% of its tokens, whole lines, marked
``... (内容已截断)``), then deleted if the context is still over. Text without section headers
falls back to the seed's simpleCompress (keep leading lines while they fit).

The seed says "先尝试部分截断（保留50%）" without saying which half. Its upstream code keeps the
leading lines of every section, which for [Context] (the history, oldest first) keeps the oldest
messages and drops those nearest the query; ctxlab keeps the newest messages of [Context] and the
leading lines of the other sections."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import accumulate
from typing import NamedTuple

from ctxlab import caches
from ctxlab.strategies.seeds.gssc.structure import (
    CONTEXT,
    CONTEXT_LEAD,
    EVIDENCE_HEADER,
    HEADERS,
    OUTPUT,
    ROLE,
    STATE,
    TASK_HEADER,
)

TRUNCATION_ORDER = (CONTEXT, EVIDENCE_HEADER, STATE, OUTPUT, TASK_HEADER, ROLE)
TRUNCATED = "... (内容已截断)"  # "... (content truncated)"
SEPARATOR = "\n\n"

Count = Callable[[str], int]
Sections = list[tuple[str, str]]
# A line opening a rendered message (`packets.render`): where [Context] can be cut between messages.
_MESSAGE_START = re.compile(r"\[(?:system|user|assistant|tool)\] ")


class Compressed(NamedTuple):
    """The compressed context and what was cut: ``(header, "halved" | "deleted")`` in order."""

    text: str
    cuts: tuple[tuple[str, str], ...] = ()


def truncate_section(section: str, target: int, count: Count) -> str:
    """Keep the header line and the leading lines within `target` tokens, then the marker.

    A section of two lines or fewer is returned unchanged (the seed keeps a header and one line).
    """
    lines, sums = _line_sums(count, section)
    if len(lines) <= 2:
        return section
    # Lines are added while the total so far is under the target and the line still fits: the
    # first line left out is the first i >= 1 with sums[i] >= target or sums[i + 1] > target.
    stop = min(bisect_left(sums, target, 1), bisect_right(sums, target, 2) - 1)
    return "\n".join(lines[:stop]) + ("\n" + TRUNCATED if stop < len(lines) else "")


@caches.per_conversation
# A section comes back at many calls and at every setting a tuner tries (800 distinct sections
# halved 19,086 times over five settings on the bundled sessions): its lines are counted once.
@lru_cache(maxsize=1024)
def _line_sums(count: Count, section: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The lines of `section` and the running token totals before each (the whole last)."""
    lines = section.split("\n")
    return tuple(lines), tuple(accumulate(map(count, lines), initial=0))


def truncate_context(section: str, target: int, count: Count) -> str:
    """[Context] halved the way that keeps the newest history: its header (and lead-in), the marker,
    then its newest whole messages within `target` tokens; when not even the newest message fits,
    that message's leading lines (so it is still seen, cut). Two lines or fewer stay unchanged."""
    lines = section.split("\n")
    if len(lines) <= 2:
        return section
    head = lines[:2] if lines[1] == CONTEXT_LEAD else lines[:1]
    body = lines[len(head):]
    room = target - sum(count(line) for line in head) - count(TRUNCATED)
    blocks = _message_blocks(body)
    kept: list[str] = []
    for block in reversed(blocks):
        tokens = sum(count(line) for line in block)
        if tokens > room:
            break
        kept[:0] = block
        room -= tokens
    if not kept and blocks:
        kept = _leading_lines(blocks[-1], room, count)
    if len(kept) == len(body):
        return section
    return "\n".join([*head, TRUNCATED, *kept])


def _message_blocks(lines: Sequence[str]) -> list[list[str]]:
    """Lines grouped by message: a block opens at each line that starts a rendered message."""
    blocks: list[list[str]] = []
    for line in lines:
        if not blocks or _MESSAGE_START.match(line):
            blocks.append([])
        blocks[-1].append(line)
    return blocks


def _leading_lines(lines: Sequence[str], room: int, count: Count) -> list[str]:
    kept: list[str] = []
    for line in lines:
        room -= count(line)
        if room < 0:
            break
        kept.append(line)
    return kept


def compress_sections(sections: Sequence[tuple[str, str]], limit: int, count: Count) -> Compressed:
    """Halve, then delete, sections in `TRUNCATION_ORDER` until the context fits `limit` tokens.

    Sections keep their template order when rebuilt (the seed's rebuild, despite its comment,
    reverses the order and puts [Role & Policies] last; ctxlab follows the comment). The running
    total is the sum of the sections' counts plus the separators, so each section is counted once
    per change instead of the whole context per step.
    """
    current = {h: t.strip() for h, t in sections if t.strip()}
    sizes = {h: count(t) for h, t in current.items()}
    gap = count(SEPARATOR)

    def total() -> int:
        return sum(sizes[h] for h in current) + gap * max(len(current) - 1, 0)

    cuts: list[tuple[str, str]] = []
    for header in TRUNCATION_ORDER:
        if total() <= limit:
            break
        if header not in current:
            continue
        halve = truncate_context if header == CONTEXT else truncate_section
        halved = halve(current[header], sizes[header] // 2, count)
        if halved != current[header]:
            current[header], sizes[header] = halved, count(halved)
            cuts.append((header, "halved"))
        if total() > limit:
            del current[header]
            cuts.append((header, "deleted"))
    return Compressed(SEPARATOR.join(current.values()), tuple(cuts))


def simple_compress(text: str, limit: int, count: Count) -> Compressed:
    """The seed's simpleCompress: leading lines while they fit (no marker, as in the seed)."""
    kept, used = [], 0
    for line in text.split("\n"):
        tokens = count(line + "\n")
        if used + tokens > limit:
            break
        kept.append(line)
        used += tokens
    return Compressed("\n".join(kept), (("", "lines"),) if len(kept) < text.count("\n") + 1 else ())


def parse_sections(text: str) -> Sections:
    """Split a context at known headers that open a line (text before the first one is kept as a
    preamble under the header ""); [] when it has no headers."""
    starts = sorted((pos, h) for h in HEADERS if (pos := _line_start(text, h)) >= 0)
    if not starts:
        return []
    sections: Sections = [("", text[:starts[0][0]])] if text[:starts[0][0]].strip() else []
    ends = [pos for pos, _ in starts[1:]] + [len(text)]
    sections.extend((h, text[pos:end]) for (pos, h), end in zip(starts, ends, strict=False))
    return sections


def compress(text: str, limit: int, count: Count, sections: Sequence[tuple[str, str]] | None = None) -> Compressed:
    """The TruncateCompressor with PreserveStructure: by sections when there are headers, else by lines."""
    if count(text) <= limit:
        return Compressed(text)
    parsed = list(sections) if sections is not None else parse_sections(text)
    return compress_sections(parsed, limit, count) if parsed else simple_compress(text, limit, count)


def _line_start(text: str, header: str) -> int:
    pos = text.find(header)
    while pos > 0 and text[pos - 1] != "\n":
        pos = text.find(header, pos + 1)
    return pos
