"""Names and the lines that hold them: which lines of an old message the conversation went back to.

A *name* is what an agent can only get from its context: a run of ``A-Z a-z 0-9 _ . / : @ # -`` of
at least `MIN_NAME` characters with a digit, one of ``/ . _ : -``, or an inner capital (a path, a
symbol, a flag, a version, an id); the shape of the grounded measures' specific strings
(`ctxlab.metrics.specific`, a higher layer than strategies), without ``key=`` runs. A line of an
old tool output is *referenced* when it holds a name that a later message of the conversation
holds too (the agent's own calls and text, the user, later outputs): what the agent has already
gone back to is what it is likely to need again. Only the messages handed to the policy are read,
so nothing after the call being compressed is used.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate
from typing import NamedTuple

from ctxlab import caches
from ctxlab.messages import Message

MIN_NAME = 5
_RUN = re.compile(r"[A-Za-z0-9_./:@#-]+")
_SPECIFIC = re.compile(r"[0-9/._:-]|[a-z0-9][A-Z]")


def names(text: str) -> frozenset[str]:
    """The names in `text` (trailing ``.`` and ``:`` stripped)."""
    runs = (run.rstrip(".:") for run in _RUN.findall(text))
    return frozenset(run for run in runs if len(run) >= MIN_NAME and _SPECIFIC.search(run))


@caches.per_conversation
# A compaction reads every message; most were read at the previous call. Room for a tuner's
# sessions (the bundled 120 hold 5,359 texts, about 10 MB of names): every setting it tries reads
# the same messages again, and a smaller cache missed all of them at each knob change.
@lru_cache(maxsize=16384)
def _text_names(text: str) -> frozenset[str]:
    return names(text)


def message_names(message: Message) -> frozenset[str]:
    """The names of a message's text and of its tool calls' arguments."""
    found = _text_names(message.text)
    for call in message.tool_calls:
        found = found | _text_names(call.arguments)
    return found


def last_named(messages: Sequence[Message]) -> dict[str, int]:
    """Each name's last index among `messages`: a name of ``messages[i]`` is held by a later
    message exactly when its last index is after ``i`` (one pass, no set per message)."""
    return {name: i for i, message in enumerate(messages) for name in message_names(message)}


def named_later(messages: Sequence[Message], i: int, last: dict[str, int]) -> frozenset[str]:
    """The names of ``messages[i]`` that a later message holds too (`last` from `last_named`)."""
    return frozenset(name for name in message_names(messages[i]) if last[name] > i)


def referenced_lines(text: str, wanted: frozenset[str]) -> list[tuple[int, str]]:
    """(number, line) of the lines of `text` holding a name in `wanted`, in order."""
    hits = _text_names(text) & wanted
    if not hits:
        return []
    lines, where = _lines_by_name(text)
    return [(n, lines[n]) for n in sorted({n for name in hits for n in where[name]})]


class _Lines(NamedTuple):
    lines: list[str]
    where: dict[str, tuple[int, ...]]  # each run of at least MIN_NAME characters: the lines holding it


@caches.per_conversation
# The same old tool outputs are read at every call that compacts, and again at every knob change.
@lru_cache(maxsize=2048)
def _lines_by_name(text: str) -> _Lines:
    lines = text.split("\n")
    starts = list(accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    where: dict[str, list[int]] = {}
    for match in _RUN.finditer(text):
        run = match.group().rstrip(".:")
        if len(run) >= MIN_NAME:
            where.setdefault(run, []).append(bisect_right(starts, match.start()) - 1)
    return _Lines(lines, {run: tuple(found) for run, found in where.items()})


__all__ = ["MIN_NAME", "last_named", "message_names", "named_later", "names", "referenced_lines"]
