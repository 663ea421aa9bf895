"""Safe cut (the ``safe_cut`` tail): how much of the newest history a compaction target leaves to
keep, where the kept part may start, and the summary's ``## Files`` section (Cline's agentic
compaction).

Source: cline/cline @ 21cb8d25, ``sdk/packages/core/src/extensions/context/`` @ 8bbdde2a:
``compaction.ts`` (``resolveAutoRequestTargetTokens``, ``countUserAssistantPairs``,
``translateRequestBudgetToMessages``; ``preserveRecentTokens`` capped by the messages' target) and
``compaction-shared.ts`` (``COMPACTION_TRIGGER_RATIO`` 0.9, ``DEFAULT_TARGET_RATIO`` 0.7,
``findCutIndex``, ``isSafeCutBoundary``, ``truncateText``, ``renderFilesSection``,
``ensureFilesSection``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from ctxlab.messages import Message
from ctxlab.strategies.mechanics.context import real_user
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize.toolcalls import file_operations

TRIGGER_RATIO = 0.9  # COMPACTION_TRIGGER_RATIO: the trigger is this share of the max input
TARGET_RATIO = 0.7  # DEFAULT_TARGET_RATIO: of the trigger
LONG_RATIO = 0.5  # LONG_CONVERSATION_TARGET_RATIO: of the max input, from LONG_PAIRS exchanges on
LONG_PAIRS = 5
_FILES = re.compile(r"^## Files$", re.IGNORECASE | re.MULTILINE)


def request_target(max_input: float, trigger: float, pairs: int, max_output: int) -> float:
    """``resolveAutoRequestTargetTokens``: half the max input once the conversation has 5 exchanges
    and the model's max output is known and below the max input, else 0.7 of the trigger; below
    the trigger and the max input, at least 1."""
    long = pairs >= LONG_PAIRS and 0 < max_output < max_input
    target = math.floor(max_input * LONG_RATIO) if long else math.floor(trigger * TARGET_RATIO)
    return max(1, min(target, max_input, max(1, trigger - 1)))


def user_assistant_pairs(messages: Sequence[Message]) -> int:
    """``countUserAssistantPairs``: assistant messages answering a user message (tool results are
    user messages in Cline's history)."""
    pairs, pending = 0, False
    for m in messages:
        if m.role in ("user", "tool"):
            pending = True
        elif m.role == "assistant" and pending:
            pairs, pending = pairs + 1, False
    return pairs


def preserve_tokens(keep: int, request: float, overhead: int) -> int:
    """``preserveRecentTokens`` capped by the messages' target (``max(1, floor(target - overhead))``)."""
    return min(keep, max(1, math.floor(request - overhead)))


def find_cut(messages: Sequence[Message], counts: Sequence[int], preserve: int, start: int) -> int | None:
    """``findCutIndex`` over ``messages[start:]``: walk back from the newest message until `preserve`
    tokens are reached; never past the newest typed user message; back to a safe boundary (an
    assistant message or a typed user message, never a tool result). None: nothing to compact."""
    total, candidate = 0, len(messages)
    for i in range(len(messages) - 1, start - 1, -1):
        total += counts[i]
        candidate = i
        if total >= preserve:
            break
    if candidate <= start:
        return None
    turn = next((i for i in range(len(messages) - 1, start, -1) if real_user(messages[i])), None)
    cut = min(candidate, turn) if turn is not None else candidate
    while cut > start and not (messages[cut].role == "assistant" or real_user(messages[cut])):
        cut -= 1
    return cut if cut > start else None


def clip_result(text: str, limit: int) -> str:
    """``truncateText``: the first `limit` characters and how many were cut."""
    return text if len(text) <= limit else text[:limit] + ap.CLINE_TRUNCATED.format(chars=len(text) - limit)


def clip_results(messages: Sequence[Message], limit: int) -> list[Message]:
    """The messages with every tool result cut to `limit` characters (what the summarizer reads)."""
    return [m.with_text(clip_result(m.text, limit)) if m.role == "tool" and len(m.text) > limit else m
            for m in messages]


def files_for(summary: str, folded: Sequence[Message], previous: str | None) -> str:
    """`summary` with Cline's ``## Files`` when it has none: what the folded messages read and
    modified, with the previous summary's lists carried."""
    read, modified = file_operations(folded)
    earlier = files_of(previous) if previous else ([], [])
    modified = sorted({*earlier[1], *modified})
    return ensure_files(summary, sorted({*earlier[0], *read} - set(modified)), modified)


def files_section(read: Iterable[str], modified: Iterable[str]) -> str:
    """``renderFilesSection``: ``## Files``, then ``Read:`` and ``Modified:`` lists (``- none`` when empty)."""
    def listed(paths: Iterable[str]) -> str:
        return "\n".join(f"- {p}" for p in paths) or "- none"
    return f"## Files\nRead:\n{listed(read)}\nModified:\n{listed(modified)}"


def ensure_files(summary: str, read: Iterable[str], modified: Iterable[str]) -> str:
    """``ensureFilesSection``: the summary as is when it has a ``## Files`` line, else with the section."""
    if _FILES.search(summary):
        return summary.strip()
    return f"{summary.strip()}\n\n{files_section(read, modified)}".strip()


def files_of(summary: str) -> tuple[list[str], list[str]]:
    """The ``Read:`` and ``Modified:`` paths of a summary's ``## Files`` section (none: two empty lists)."""
    found = _FILES.search(summary)
    lists: dict[str, list[str]] = {"read": [], "modified": []}
    current = None
    for line in (summary[found.end():] if found else "").splitlines():
        key = line.strip().rstrip(":").lower()
        if key in lists:
            current = key
        elif line.startswith("## "):
            break
        elif current and line.startswith("- ") and line[2:].strip() != "none":
            lists[current].append(line[2:].strip())
    return lists["read"], lists["modified"]


__all__ = ["LONG_PAIRS", "TARGET_RATIO", "TRIGGER_RATIO", "clip_result", "clip_results", "ensure_files", "files_for",
           "files_of", "files_section", "find_cut", "preserve_tokens", "request_target", "user_assistant_pairs"]
