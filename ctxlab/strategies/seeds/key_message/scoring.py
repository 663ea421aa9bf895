"""Seed 004's priority scores for `key_message`, its documented explainable weighting, and the
greedy selection of whole units (a message, or a tool call with its results) by priority.

The role tiers and the +1000 recency bonus are the seed's `scoreMessage` exactly. The seed
documents, without numbers, bonuses for file paths / code blocks / numbers / keywords, a recency
decay bonus and penalties for verbose or repeated tool results; ctxlab fixes the values below.
All bonuses together stay under 10 points, so they reorder messages within a tier (and the 79/80/85
tiers that differ by little) but never lift an assistant or tool message above a user message.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ctxlab import caches
from ctxlab.messages import Message
from ctxlab.strategies.mechanics import context
from ctxlab.strategies.mechanics.context import Span

RECENT_BONUS = 1000.0
ROLE_SCORES = {"user": 100.0, "artifact": 90.0, "node_complete": 85.0, "tool_calls": 80.0,
               "tool": 79.0, "assistant": 50.0}
POSITION_STEP = 0.01  # seed: index * 0.01, later messages first among equals

PATH_BONUS = 2.0
CODE_BONUS = 2.0
NUMBER_BONUS = 1.0
KEYWORD_BONUS = 2.0
RECENCY_MAX_BONUS = 2.0
RECENCY_HALF_LIFE = 10  # messages: the decay bonus halves every 10 messages back
VERBOSE_CHARS = 4000
VERBOSE_PENALTY = -3.0
REPEAT_PENALTY = -5.0

# Each alternative starts only where a run of path characters starts (the lookbehinds), so a long
# run without a slash costs one linear scan instead of one scan per position.
_PATH = re.compile(r"(?<![\w.-])(?:[\w.-]+/)+[\w.-]+|(?<![\w.-])[\w-]+\.(?:py|js|ts|tsx|jsx|go|rs|java|kt|"
                   r"c|h|cc|cpp|rb|php|cs|swift|md|json|ya?ml|toml|ini|cfg|txt|csv|sh|sql|html|css|lock)\b")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_KEYWORD = re.compile(r"\b(?:must|should|need)\b|必须|需要", re.IGNORECASE)
_SUMMARY_MARKERS = ("SUMMARY", "CONVERSATION_SUMMARY")


def is_summary(message: Message) -> bool:
    """A SUMMARY-type message: marked so by a strategy, or a system message carrying the marker."""
    if message.mark == "summary":
        return True
    return message.role == "system" and any(m in message.text for m in _SUMMARY_MARKERS)


def base_score(message: Message) -> float:
    """The seed's role tier, checked in the seed's order (user first, then content markers)."""
    text = message.text
    if message.role == "user":
        return ROLE_SCORES["user"]
    if "ARTIFACT_SAVED" in text:
        return ROLE_SCORES["artifact"]
    if "NODE_COMPLETE" in text:
        return ROLE_SCORES["node_complete"]
    if message.tool_calls:
        return ROLE_SCORES["tool_calls"]
    if message.role == "tool":
        return ROLE_SCORES["tool"]
    if message.role == "assistant":
        return ROLE_SCORES["assistant"]
    return 0.0


@caches.per_conversation
@functools.lru_cache(maxsize=65536)
def content_bonus(text: str) -> float:
    """Bonuses for what makes a message worth keeping: paths, code blocks, numbers, must/need words.

    Cached by text: a replay scores the same message at every later turn.
    """
    bonus = 0.0
    if _PATH.search(text):
        bonus += PATH_BONUS
    if "```" in text:
        bonus += CODE_BONUS
    if _NUMBER.search(text):
        bonus += NUMBER_BONUS
    if _KEYWORD.search(text):
        bonus += KEYWORD_BONUS
    return bonus


def recency_bonus(age: int) -> float:
    """Decaying bonus by how many messages back a message is (0 = the newest)."""
    return RECENCY_MAX_BONUS * 0.5 ** (age / RECENCY_HALF_LIFE)


def tool_penalties(messages: Sequence[Message]) -> list[float]:
    """Penalties for verbose tool results and for results repeating an earlier identical one.

    A repeat is the same tool returning the same output again (e.g. re-reading an unchanged
    file); the earlier copy carries the same information, so the later one ranks lower.
    """
    names: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()
    penalties = [0.0] * len(messages)
    for i, m in enumerate(messages):
        names.update((c.id, c.name) for c in m.tool_calls)
        if m.role != "tool":
            continue
        text = m.text
        if len(text) > VERBOSE_CHARS:
            penalties[i] += VERBOSE_PENALTY
        key = (names.get(m.tool_call_id or "", m.name or ""), text)
        if key in seen:
            penalties[i] += REPEAT_PENALTY
        seen.add(key)
    return penalties


def score_messages(messages: Sequence[Message], min_recent: int) -> list[float]:
    """Priority of every message: role tier + recent bonus + position bonus + explainable weighting.

    Args:
        messages: the messages to score (the compressible history, system prompt included).
        min_recent: the last `min_recent` messages get the seed's +1000.
    """
    total = len(messages)
    penalties = tool_penalties(messages)
    scores = []
    for index, m in enumerate(messages):
        recent = RECENT_BONUS if index >= total - min_recent else 0.0
        weighting = content_bonus(m.text) + recency_bonus(total - 1 - index) + penalties[index]
        scores.append(base_score(m) + recent + index * POSITION_STEP + weighting)
    return scores


def classify_units(messages: Sequence[Message], units: Sequence[Span], end: int, min_recent: int) -> list[str]:
    """Each unit's part: ``pinned`` (system prompt, newest user), ``keep`` (the rest of the must-keep set:
    the current loop, SUMMARY messages, the last `min_recent` messages), ``excluded`` (historical system
    messages) or ``optional``."""
    pinned = context.pinned(messages)
    recent_from = end - min_recent
    roles = []
    for u in units:
        head = messages[u.start]
        if any(i in pinned for i in range(u.start, u.stop)):
            roles.append("pinned")
        elif u.start >= end or is_summary(head):
            roles.append("keep")
        elif head.role == "system":
            roles.append("excluded")
        else:
            roles.append("keep" if u.stop > recent_from else "optional")
    return roles


def unit_costs(units: Sequence[Span], counts: Sequence[int]) -> list[int]:
    """Each unit's tokens: the sum of its messages' (the seed's group cost)."""
    return [sum(counts[u.start:u.stop]) for u in units]


def greedy(roles: Sequence[str], priority: Sequence[float], costs: Sequence[int], available: int) -> set[int] | None:
    """The must-keep units plus the highest-priority others that fit; None if must-keep is over."""
    chosen = {k for k, r in enumerate(roles) if r in ("pinned", "keep")}
    room = available - sum(costs[k] for k in chosen)
    if room < 0:
        return None
    for k in sorted((k for k, r in enumerate(roles) if r == "optional"), key=lambda k: -priority[k]):
        if costs[k] <= room:
            chosen.add(k)
            room -= costs[k]
    return chosen


def gather_units(messages: Sequence[Message], units: Sequence[Span], chosen: set[int]) -> tuple[Message, ...]:
    """The chosen units' messages in their original order."""
    return tuple(m for k in sorted(chosen) for m in messages[units[k].start:units[k].stop])
