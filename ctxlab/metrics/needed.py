"""What each recorded action of a session needed from its history: the grader's side of the
grounded measures, computed once per conversation from the full history (`SessionNeeds`).

The action at assistant message ``t`` is its text and its tool calls' JSON-decoded arguments
(`ctxlab.metrics.facts.action_text`). Its *needed strings* are its specific strings
(`ctxlab.metrics.specific`) that occur verbatim in a message before ``t`` and not in the system
prompt (the leading system messages) or the tool schemas, which every call sends anyway. For each
needed string this records every message holding it, the lines it stood on there (its contexts,
clipped to `CONTEXT_CHARS` either side), the smallest message holding it (for refetch cost) and
whether `extract_facts` finds it. Nothing here is ever handed to a strategy.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ahocorasick_rs import AhoCorasick

from ctxlab import caches
from ctxlab.messages import Conversation, Message
from ctxlab.metrics.facts import action_text, extract_facts, normalize, raw_text
from ctxlab.metrics.held import StringFinder
from ctxlab.metrics.specific import kind_of, specific_strings
from ctxlab.strategies.mechanics import system_prefix
from ctxlab.tokens import TokenCounter

CONTEXT_CHARS = 80
_NEVER = 1 << 62


class Need(NamedTuple):
    """One needed string of one call: its kind, whether it is *old* (in no message new since the
    previous call) and whether `extract_facts` finds it in a message before the call."""

    text: str
    kind: str
    old: bool
    regex: bool


@dataclass
class Holdings:
    """Where one string occurs in the history: the messages holding it (ascending), the prefix
    minimum of their sizes as (tokens, index), its contexts (snippet -> first index), and the first
    message where `extract_facts` finds it."""

    indices: list[int] = field(default_factory=list)
    smallest: list[tuple[int, int]] = field(default_factory=list)
    contexts: dict[str, int] = field(default_factory=dict)
    regex_from: int = _NEVER
    _anchors: tuple[dict[tuple[int, int], set[str]], list[str]] | None = field(default=None, repr=False,
                                                                              compare=False)

    def first(self) -> int:
        return self.indices[0] if self.indices else _NEVER

    def any_in(self, start: int, stop: int) -> bool:
        """Whether a message with index in ``[start, stop)`` holds it."""
        i = bisect_left(self.indices, start)
        return i < len(self.indices) and self.indices[i] < stop

    def smallest_before(self, t: int) -> tuple[int, int] | None:
        """(tokens, index) of the smallest message before `t` holding it."""
        k = bisect_left(self.indices, t)
        return self.smallest[k - 1] if k else None

    def framed_in(self, s: str, text: str) -> bool:
        """Whether `text` holds one of the contexts of `s` (``any(c in text for c in contexts)``).

        Each context holds `s` at a known offset, so it can only occur in `text` where `s` does:
        at each occurrence, the slice of each (offset, length) the contexts have is looked up in a
        set, instead of scanning all of `text` once per context (a summary is searched this way for
        every needed string it holds, and a common string has hundreds of contexts).
        """
        if self._anchors is None:
            self._anchors = _anchors(s, self.contexts)
        shapes, loose = self._anchors
        if any(c in text for c in loose):
            return True
        q = text.find(s)
        while q >= 0:
            if any(k <= q and text[q - k:q - k + n] in found for (k, n), found in shapes.items()):
                return True
            q = text.find(s, q + 1)
        return False


def _anchors(s: str, contexts: Iterable[str]) -> tuple[dict[tuple[int, int], set[str]], list[str]]:
    """The contexts by (offset of `s` in them, length), and those not holding `s` verbatim (none
    expected: a context is cut around an occurrence; kept for a plain search all the same)."""
    shapes: dict[tuple[int, int], set[str]] = defaultdict(set)
    loose = []
    for c in contexts:
        k = c.find(s)
        if k < 0:
            loose.append(c)
        else:
            shapes[(k, len(c))].add(c)
    return dict(shapes), loose


def line_text(message: Message) -> str:
    """A message's searchable text with its line breaks kept: each line whitespace-normalized."""
    return "\n".join(normalize(line) for line in raw_text(message).splitlines())


def _occurrences(strings: Sequence[str], texts: Sequence[str], first: int) -> dict[str, Holdings]:
    """Every occurrence of `strings` (non-empty, distinct) in ``texts[first:]``, overlapping ones
    included: one Aho-Corasick pass over the texts joined by NUL (a `str.find` per string scanned
    them once per string), positions mapped back to messages and to their lines."""
    starts, parts, at = [], [], 0
    for text in texts[first:]:
        starts.append(at)
        parts.append(text)
        at += len(text) + 1
    joined = "\0".join(parts)
    found: dict[int, list[int]] = defaultdict(list)
    if strings:
        for k, pos, _ in AhoCorasick(strings).find_matches_as_indexes(joined, overlapping=True):
            found[k].append(pos)
    breaks = [m.start() for m in _BREAK.finditer(joined)]
    lines: dict[int, str] = {}  # a line short enough to be its every occurrence's context, normalized
    out: dict[str, Holdings] = {}
    for k in sorted(found):  # in the order of `strings`, each one's positions ascending
        s = strings[k]
        hold = out[s] = Holdings()
        for pos in found[k]:
            j = bisect_right(starts, pos) - 1
            if not hold.indices or hold.indices[-1] != j + first:
                hold.indices.append(j + first)
            hold.contexts.setdefault(_context(joined, breaks, pos, len(s), lines), j + first)
    return out


_BREAK = re.compile("[\n\0]")


def _context(joined: str, breaks: Sequence[int], pos: int, size: int, lines: dict[int, str]) -> str:
    """The line around an occurrence, at most `CONTEXT_CHARS` either side of it (`breaks`: the
    positions of every line break and NUL in `joined`, ascending; `lines`: the short lines met so
    far, by index: a line of at most ``CONTEXT_CHARS + 1`` characters is the context of every
    occurrence inside it, and most lines are short and hold many occurrences)."""
    i = bisect_left(breaks, pos)
    k = bisect_left(breaks, pos + size, i)
    if k == i and i in lines:
        return lines[i]
    line_start = breaks[i - 1] + 1 if i else 0
    line_end = breaks[i] if i < len(breaks) else len(joined)
    start = max(line_start, pos - CONTEXT_CHARS)
    end = min(breaks[k] if k < len(breaks) else len(joined), pos + size + CONTEXT_CHARS)
    text = normalize(joined[start:end])
    if k == i and line_end - line_start <= CONTEXT_CHARS + 1:
        lines[i] = text
    return text


@dataclass
class SessionNeeds:
    """The needs of every call of one conversation (build with `SessionNeeds.build`).

    Attributes:
        conversation: the full history.
        calls: call index ``t`` -> its needed strings (only assistant messages after the first).
        holdings: needed string -> where it occurs.
        held_by: message index -> the needed strings it holds.
        tokens: message index -> its tokens under the reference counter.
        instructions: (index of the user message, normalized sentence), `instructions_of`.
        index: original message -> its index.
    """

    conversation: Conversation
    calls: dict[int, tuple[Need, ...]]
    holdings: dict[str, Holdings]
    held_by: dict[int, frozenset[str]]
    tokens: list[int]
    instructions: list[tuple[int, str]]
    index: dict[Message, int]
    views: dict = field(default_factory=dict, repr=False)  # message -> what it holds (`ctxlab.metrics.grounded`)
    limits: dict = field(default_factory=dict, repr=False)  # (call, counter) -> what its limit needs (`ctxlab.metrics.limit`)
    instruction_indices: list[int] = field(init=False, repr=False)
    finder: StringFinder | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        # `instructions_of` lists them in the order first stated, so the indices ascend.
        self.instruction_indices = [j for j, _ in self.instructions]

    def held_in(self, text: str, unfolded: str | None = None) -> frozenset[str]:
        """The needed strings `text` holds: ``{s for s in holdings if s in text}``, found by the
        runs of `text` (`ctxlab.metrics.held`; `unfolded`: `text` before whitespace was collapsed)."""
        if self.finder is None:
            self.finder = StringFinder(self.holdings)
        return self.finder.held_in(text, unfolded)

    @classmethod
    def build(cls, conversation: Conversation, counter: TokenCounter) -> SessionNeeds:
        from ctxlab.metrics.instructions import instructions_of

        messages = conversation.messages
        head = system_prefix(messages)
        fixed = "\n".join([*(line_text(m) for m in messages[:head]),
                           json.dumps(list(conversation.tools or ()), ensure_ascii=False)])
        actions = {t: specific_strings(action_text(m)) for t, m in enumerate(messages)
                   if m.role == "assistant" and t > head}
        candidates = [s for s in dict.fromkeys(s for found in actions.values() for s in found) if s not in fixed]
        holdings = _occurrences(candidates, [line_text(m) for m in messages], head)
        tokens = [counter.count_message(m) for m in messages]
        calls = _calls(messages, actions, holdings)
        needed = {n.text for needs in calls.values() for n in needs}
        holdings = {s: h for s, h in holdings.items() if s in needed}
        held_by: dict[int, set[str]] = defaultdict(set)
        for s, hold in holdings.items():
            _finish(s, hold, messages, tokens)
            for j in hold.indices:
                held_by[j].add(s)
        calls = {t: tuple(n._replace(regex=holdings[n.text].regex_from < t) for n in needs)
                 for t, needs in calls.items()}
        return cls(conversation, calls, holdings, {j: frozenset(v) for j, v in held_by.items()}, tokens,
                   instructions_of(messages), {m: i for i, m in enumerate(messages)})


def _calls(messages: Sequence[Message], actions: dict[int, list[str]],
           holdings: dict[str, Holdings]) -> dict[int, tuple[Need, ...]]:
    """The needs of each call: strings of its action held by an earlier message; *old* when none
    of the messages since the previous assistant message holds them."""
    out, previous = {}, 0
    for t in sorted(actions):
        needs = []
        for s in actions[t]:
            hold = holdings.get(s)
            if hold is not None and hold.first() < t:
                needs.append(Need(s, kind_of(s), not hold.any_in(previous, t), False))
        out[t], previous = tuple(needs), t
    return out


def _finish(s: str, hold: Holdings, messages: Sequence[Message], tokens: Sequence[int]) -> None:
    """Fill the prefix minima of sizes and the first message where the fact regexes find `s`."""
    best = (_NEVER, -1)
    for j in hold.indices:
        best = min(best, (tokens[j], j))
        hold.smallest.append(best)
        if hold.regex_from == _NEVER and s in _facts_text(messages[j]):
            hold.regex_from = j


_FACTS: dict[Message, str] = caches.per_conversation({})
_FACT_ENTRIES = 20_000


def _facts_text(message: Message) -> str:
    """`extract_facts` of a message, joined (a string is regex-found when one fact contains it)."""
    return caches.kept(_FACTS, message, _FACT_ENTRIES, lambda m: "\0".join(extract_facts(raw_text(m))))


__all__ = ["CONTEXT_CHARS", "Holdings", "Need", "SessionNeeds", "line_text"]
