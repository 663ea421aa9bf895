"""Regex fact recall of a session's calls, one after another, at the cost of what changed.

`ctxlab.metrics.facts.fact_recall` scores one result from scratch: the facts of every original
message not kept whole before the call (*wanted*), and the facts of every message sent (*found*).
In a per-turn replay the calls of one session under one policy differ by a few messages, and a
long session has thousands of calls, so scoring each from scratch costs the square of the session's
length. `FactTracker` keeps, per fact, how many not-whole originals state it and how many sent
messages hold it, and per message id how many sent messages keep it whole; a call applies the
messages it adds and removes and the originals new since the previous call. Its figures equal
`fact_recall`'s over the originals (`ctxlab.replay.metrics.against_originals`), its missing facts
in the same order, the first `MISSING` only (what the store keeps).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter, defaultdict
from collections.abc import Sequence
from itertools import chain

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.facts import FactRecall, _facts_of, normalize

MISSING = 50


class FactTracker:
    """The regex fact recall of one session's calls under one policy, in ascending order of calls."""

    def __init__(self, conversation: Conversation) -> None:
        self.facts = _facts_of(conversation)
        self.originals = conversation.messages
        self.ground = [(f, g.message_index) for g in self.facts.ground if (f := normalize(g.fact))]
        self.by_id: dict[str, list[int]] = defaultdict(list)
        for i, m in enumerate(self.originals):
            self.by_id[m.id].append(i)
        self.upto = 0
        self.sent: set[Message] = set()
        self.whole: Counter[str] = Counter()  # id -> sent messages keeping it whole
        self.found: Counter[str] = Counter()  # fact -> sent messages holding it
        self.wanted: Counter[str] = Counter()  # fact -> ground facts and not-whole originals stating it
        self.not_whole: list[int] = []  # indices below upto of originals not kept whole, ascending
        self.total = self.kept = 0

    def measure(self, upto: int, sent: Sequence[Message]) -> FactRecall:
        """Fact recall of the call before ``originals[upto]`` that sends `sent`."""
        if upto < self.upto:
            raise ValueError(f"calls must come in ascending order ({upto} after {self.upto})")
        now = set(sent)
        for message in self.sent - now:
            self._send(message, -1)
        for message in now - self.sent:
            self._send(message, 1)
        self.sent = now
        for i in range(self.upto, upto):
            if not self.whole[self.originals[i].id]:
                self._original(i, 1)
        for fact, index in self.ground:
            if self.upto <= index < upto:
                self._want(fact, 1)
        self.upto = upto
        return FactRecall(self.kept / self.total if self.total else None, self.total, self.kept, self._missing())

    def _send(self, message: Message, sign: int) -> None:
        for fact in self.facts.contains(message):
            self._find(fact, sign)
        if message.mark is not None:
            return
        before = self.whole[message.id]
        self.whole[message.id] += sign
        if (before == 0) != (self.whole[message.id] == 0):  # the id became whole, or stopped being
            for i in self.by_id.get(message.id, ()):
                if i < self.upto:
                    self._original(i, -sign)

    def _original(self, i: int, sign: int) -> None:
        if sign > 0:
            insort(self.not_whole, i)
        else:
            del self.not_whole[bisect_left(self.not_whole, i)]
        for fact in self.facts.auto_facts(self.originals[i]):
            if fact:
                self._want(fact, sign)

    def _want(self, fact: str, sign: int) -> None:
        before = self.wanted[fact]
        self.wanted[fact] += sign
        if (before == 0) != (self.wanted[fact] == 0):
            self.total += sign
            self.kept += sign if self.found[fact] else 0

    def _find(self, fact: str, sign: int) -> None:
        before = self.found[fact]
        self.found[fact] += sign
        if (before == 0) != (self.found[fact] == 0) and self.wanted[fact]:
            self.kept += sign

    def _missing(self) -> tuple[str, ...]:
        """The first `MISSING` wanted facts not found, in `fact_recall`'s order (ground facts first,
        then the not-whole originals' facts by message), stopping once all are listed."""
        left = min(MISSING, self.total - self.kept)
        out: list[str] = []
        seen: set[str] = set()
        facts = chain((f for f, index in self.ground if index < self.upto),
                      (f for i in self.not_whole for f in self.facts.auto_facts(self.originals[i]) if f))
        for fact in facts:
            if len(out) >= left:
                break
            if fact not in seen:
                seen.add(fact)
                if not self.found[fact]:
                    out.append(fact)
        return tuple(out)


__all__ = ["MISSING", "FactTracker"]
