"""The structured summary format: section names, parsing a previous summary, rendering.

Both summarizers write Markdown sections (``## Goal`` then ``- item`` lines). Parsing accepts
that format, pi-mono's (``## Constraints & Preferences``, ``### Done``, ``<read-files>`` blocks)
and free prose (kept as Critical Context), so an incremental compaction can fold any previous
summary into the new one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from ctxlab import caches

GOAL = "Goal"
CONSTRAINTS = "Constraints & Preferences"
DECISIONS = "Key Decisions"
READ = "Files Read"
MODIFIED = "Files Modified"
COMMANDS = "Commands Run"
ERRORS = "Errors Seen"
PROGRESS = "Progress"
NEXT = "Next Steps"
CONTEXT = "Critical Context"
DETAILS = "Details"
SECTIONS = (GOAL, CONSTRAINTS, DECISIONS, READ, MODIFIED, COMMANDS, ERRORS, PROGRESS, NEXT, CONTEXT, DETAILS)
# Details (paths, identifiers, numbers seen in tool outputs) are short: several share a line.
DETAIL_SEPARATOR = "; "
_DETAIL_LINE_CHARS = 160

_ALIASES = {
    "goal": GOAL, "goals": GOAL, "user requests": GOAL, "requests": GOAL, "original request": GOAL,
    "constraints": CONSTRAINTS, "constraints & preferences": CONSTRAINTS, "constraints & rules": CONSTRAINTS,
    "constraints and preferences": CONSTRAINTS, "rules": CONSTRAINTS, "preferences": CONSTRAINTS,
    "key decisions": DECISIONS, "decisions": DECISIONS,
    "files read": READ, "read files": READ, "read-files": READ,
    "files modified": MODIFIED, "modified files": MODIFIED, "modified-files": MODIFIED,
    "commands": COMMANDS, "commands run": COMMANDS,
    "errors": ERRORS, "errors seen": ERRORS, "blocked": ERRORS,
    "progress": PROGRESS, "done": PROGRESS, "in progress": PROGRESS, "early progress": PROGRESS,
    "next steps": NEXT, "next": NEXT,
    "critical context": CONTEXT, "context": CONTEXT, "context for suffix": CONTEXT,
    "details": DETAILS, "key details": DETAILS, "trail": DETAILS,
}
_HEADER = re.compile(r"^\s*(?:#{1,6}\s*(.+?)|\*\*(.+?)\*\*)\s*:?\s*$")
_TAG = re.compile(r"^\s*<(/?)(read-files|modified-files)>\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+•]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+)")
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")


def section_of(header: str) -> str | None:
    """The canonical section a header names, None for an unknown header."""
    key = header.strip().strip("*:# ").lower()
    return _ALIASES.get(key)


def parse_summary(text: str) -> dict[str, list[str]]:
    """Split a summary into ``{section: [items]}``; lines under unknown headers or before any
    header go to Critical Context, ``<read-files>``/``<modified-files>`` blocks to the file lists.

    The result is the caller's to change: a new dict of new lists around a parse cached by text.
    """
    return {section: list(items) for section, items in _parsed(text)}


@caches.per_conversation
# A compaction parses the previous summary and its own, and every setting a tuner tries that
# compacts at the same calls writes the same summaries again (4,147 distinct texts parsed 26,920
# times over five settings of claude_code on the bundled sessions).
@lru_cache(maxsize=8192)
def _parsed(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((section, tuple(items)) for section, items in _parse(text).items())


def _parse(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = CONTEXT
    outer = CONTEXT
    for raw in text.splitlines():
        tag = _TAG.match(raw)
        if tag:
            opening = not tag.group(1)
            outer = current if opening else outer
            current = (READ if tag.group(2) == "read-files" else MODIFIED) if opening else outer
            continue
        header = _HEADER.match(raw)
        if header:
            current = section_of(header.group(1) or header.group(2) or "") or CONTEXT
            continue
        if _RULE.match(raw):
            continue
        item = _BULLET.sub("", raw).strip()
        if item and item.lower() not in ("(none)", "none", "n/a"):
            pieces = item.split(DETAIL_SEPARATOR) if current == DETAILS else [item]
            out.setdefault(current, []).extend(p for p in pieces if p)
    return out


def render(sections: Mapping[str, Sequence[str]]) -> str:
    """Markdown: ``## Section`` headers in the canonical order, one ``- item`` per line."""
    blocks = []
    for name in (*SECTIONS, *(s for s in sections if s not in SECTIONS)):
        items = sections.get(name)
        if items:
            blocks.append("\n".join([f"## {name}", *(f"- {line}" for line in lines_of(name, items))]))
    return "\n\n".join(blocks)


def lines_of(section: str, items: Sequence[str]) -> list[str]:
    """The rendered lines of a section's items: one per item, except details, joined a few a line."""
    if section != DETAILS:
        return list(items)
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + len(item) + len(DETAIL_SEPARATOR) <= _DETAIL_LINE_CHARS:
            lines[-1] += DETAIL_SEPARATOR + item
        else:
            lines.append(item)
    return lines


def file_lists_block(read: Iterable[str], modified: Iterable[str]) -> str:
    """pi-mono's file-operation tags, appended to an LLM summary so file lists survive verbatim."""
    modified = list(dict.fromkeys(modified))
    read = [f for f in dict.fromkeys(read) if f not in set(modified)]
    blocks = []
    if read:
        blocks.append("<read-files>\n" + "\n".join(read) + "\n</read-files>")
    if modified:
        blocks.append("<modified-files>\n" + "\n".join(modified) + "\n</modified-files>")
    return "\n\n".join(blocks)
