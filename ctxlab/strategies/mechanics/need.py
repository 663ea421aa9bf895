"""What the history so far says about an old tool output: the features a learned keep-policy ranks by.

Every feature reads only the messages handed to the policy (the history up to the call being
compressed), never what comes after it, so the same code serves training (`ctxlab.learn`, at
sampled calls of recorded sessions) and the `learned` policy at each compaction:

==================  ==========================================================================
age_calls           assistant messages after it (log)
age_tokens          tokens after it (log)
size                its tokens (log)
names               the names it holds (`refs.names`: paths, symbols, flags, numbers; log)
named_share         the share of its names a later message holds too
named_n             how many of its names a later message holds (log)
mentions            later messages holding one of its names (log; at most 20 per name)
since_mention       assistant messages since the last of those (log; age + 1 when none)
recent_mention      one of its names is in the last `RECENT` messages after it
rerun               the same call (tool and arguments) was made again later
retouched           a name of its call's arguments (a path, a command) is held by a later message
current_turn        it came after the newest user message (the task in progress)
error               its head reads like an error (error, traceback, failed, not found)
lines_share         the share of its characters on its referenced lines (`refs.referenced_lines`)
unique_share        the share of its names no other message holds (what only it could bring back)
covered_share       the share of its names the newest `RECENT` messages hold (kept anyway)
kind_<k>            its tool's kind, from the tool's name (`kind_of`): read, shell, search, edit,
                    web, task, other
==================  ==========================================================================
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate
from typing import NamedTuple

from ctxlab import caches
from ctxlab.messages import Message
from ctxlab.strategies.mechanics.context import call_names, real_user
from ctxlab.strategies.mechanics.refs import message_names, names, referenced_lines

KINDS = {"read": r"read|view|open|cat\b|get_?file", "shell": r"bash|shell|exec|run|command|terminal|python",
         "search": r"grep|glob|search|find|^ls$|list|rg\b", "edit": r"edit|write|create|replace|insert|patch|apply",
         "web": r"web|browser|http|url|navigate|click", "task": r"todo|task|agent|plan"}
_KIND_RES = tuple((kind, re.compile(pattern, re.I)) for kind, pattern in KINDS.items())
_ERROR = re.compile(r"error|traceback|exception|failed|fatal|not found", re.I)
RECENT = 10  # messages counted as recent for `recent_mention`
_PER_NAME = 20  # later messages counted per name for `mentions`
_HEAD_CHARS = 4000  # characters of an output read for `error`
FEATURES = ("age_calls", "age_tokens", "size", "names", "named_share", "named_n", "mentions", "since_mention",
            "recent_mention", "rerun", "retouched", "current_turn", "error", "lines_share", "unique_share",
            "covered_share", *(f"kind_{k}" for k in (*KINDS, "other")))


def kind_of(tool: str) -> str:
    """The kind of a tool by its name: the first of `KINDS` whose pattern it matches, else ``other``."""
    return next((kind for kind, pattern in _KIND_RES if pattern.search(tool)), "other")


class History(NamedTuple):
    """What every item's features read, built once per decision: each name's messages (ascending),
    the assistant messages' indices, tokens after each message, calls by id, later calls by key."""

    postings: dict[str, list[int]]
    assistants: list[int]
    after: list[int]
    calls: dict[str, tuple[int, str, str]]
    keys: dict[tuple[str, str], list[int]]
    last_user: int

    @classmethod
    def of(cls, messages: Sequence[Message], counts: Sequence[int]) -> History:
        postings: dict[str, list[int]] = defaultdict(list)
        calls: dict[str, tuple[int, str, str]] = {}
        keys: dict[tuple[str, str], list[int]] = defaultdict(list)
        for j, message in enumerate(messages):
            for name in message_names(message):
                postings[name].append(j)
            for call in message.tool_calls:
                calls[call.id] = (j, call.name, call.arguments)
                keys[(call.name, call.arguments)].append(j)
        after = list(accumulate(reversed(counts), initial=0))[::-1][1:]  # tokens after each message
        users = [j for j, m in enumerate(messages) if real_user(m)]
        return cls(dict(postings), [j for j, m in enumerate(messages) if m.role == "assistant"], after, calls,
                   dict(keys), users[-1] if users else -1)


def item_features(messages: Sequence[Message], counts: Sequence[int], items: Sequence[int]) -> list[list[float]]:
    """The `FEATURES` of ``messages[i]`` for each tool output `i` in `items` (``counts``: tokens per message)."""
    return [list(row) for row in _item_features(tuple(messages), tuple(counts), tuple(items))]


@caches.per_conversation
# A tuner's settings often rank the same outputs of the same history (`learned` at 8k: 882 distinct
# rankings of 1,624 over five settings); the features depend on nothing else.
@lru_cache(maxsize=1024)
def _item_features(messages: tuple[Message, ...], counts: tuple[int, ...],
                   items: tuple[int, ...]) -> tuple[tuple[float, ...], ...]:
    history = History.of(messages, counts)
    tools = call_names(messages)
    return tuple(tuple(_features(messages, counts, history, tools, i)) for i in items)


def _features(messages: Sequence[Message], counts: Sequence[int], history: History, tools: dict[str, str],
              i: int) -> list[float]:
    message, n = messages[i], len(messages)
    held = message_names(message)
    later = [name for name in held if history.postings[name][-1] > i]
    seen, last = _mentions(history.postings, later, i)
    age = len(history.assistants) - bisect_right(history.assistants, i)
    since = len(history.assistants) - bisect_right(history.assistants, last) if last >= 0 else age + 1
    kind = kind_of(tools.get(message.tool_call_id or "", message.name or ""))
    text = message.text
    return [math.log1p(age), math.log1p(history.after[i]), math.log1p(counts[i]), math.log1p(len(held)),
            len(later) / max(1, len(held)), math.log1p(len(later)), math.log1p(seen), math.log1p(since),
            float(last >= n - RECENT), *_call(history, message, i), float(i > history.last_user),
            float(bool(_ERROR.search(text[:_HEAD_CHARS]))), _lines_share(text, later),
            *_shares(history.postings, held, n - RECENT), *(float(kind == k) for k in (*KINDS, "other"))]


def _mentions(postings: dict[str, list[int]], later: list[str], i: int) -> tuple[int, int]:
    """Later messages holding one of `later` (at most `_PER_NAME` per name) and the last of them."""
    seen: set[int] = set()
    last = -1
    for name in later:
        found = postings[name]
        k = bisect_right(found, i)
        seen.update(found[k:k + _PER_NAME])
        last = max(last, found[-1])
    return len(seen), last


def _call(history: History, message: Message, i: int) -> tuple[float, float]:
    """(rerun, retouched) of the call that `message` answers (0, 0 without one)."""
    call = history.calls.get(message.tool_call_id or "")
    if call is None:
        return 0.0, 0.0
    at, tool, arguments = call
    rerun = any(j > at for j in history.keys.get((tool, arguments), ()))
    touched = any(history.postings[name][-1] > i for name in names(arguments) if name in history.postings)
    return float(rerun), float(touched)


def _shares(postings: dict[str, list[int]], held: frozenset[str], recent: int) -> tuple[float, float]:
    """(unique_share, covered_share): its names in no other message, and in one at or after `recent`."""
    if not held:
        return 0.0, 0.0
    unique = sum(len(postings[name]) == 1 for name in held)
    covered = sum(postings[name][-1] >= recent for name in held)
    return unique / len(held), covered / len(held)


def _lines_share(text: str, later: list[str]) -> float:
    if not later or not text:
        return 0.0
    return sum(len(line) + 1 for _, line in referenced_lines(text, frozenset(later))) / len(text)


__all__ = ["FEATURES", "KINDS", "RECENT", "History", "item_features", "kind_of"]
