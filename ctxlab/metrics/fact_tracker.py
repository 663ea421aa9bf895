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
from typing import Any

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.facts import FactRecall, _facts_of, normalize
from ctxlab.metrics.sent import Sent
from ctxlab.metrics.sent import changes as sent_changes

MISSING = 50


class FactTracker:
    """The regex fact recall of one session's calls under one policy, in ascending order of calls."""

    def __init__(self, conversation: Conversation) -> None:
        self.facts = _facts_of(conversation)
        self.originals = conversation.messages
        self.ground = [(f, g.message_index) for g in self.facts.ground if (f := normalize(g.fact))]
        # The ground facts again by message, so a call visits only those of the messages new since the
        # previous one (`ground` keeps `fact_recall`'s order, which ranks the missing facts).
        self.arrivals = sorted(self.ground, key=lambda pair: pair[1])
        self.arrival_at = [index for _, index in self.arrivals]
        self.sources = _sources(self.facts, self.originals)
        self.by_id: dict[str, list[int]] = defaultdict(list)
        for i, m in enumerate(self.originals):
            self.by_id[m.id].append(i)
        self.upto = 0
        self.sent: set[Message] = set()
        self.whole: Counter[str] = Counter()  # id -> sent messages keeping it whole
        self.found: Counter[str] = Counter()  # fact -> sent messages holding it
        self.wanted: Counter[str] = Counter()  # fact -> ground facts and not-whole originals stating it
        self.total = self.kept = 0
        self.order: list[tuple[tuple[int, int, int], str]] = []  # the missing facts by their place in the list
        self.placed: dict[str, tuple[int, int, int]] = {}
        self.dirty: set[str] = set()

    def measure(self, upto: int, sent: Sequence[Message], *, changes: Sent | None = None) -> FactRecall:
        """Fact recall of the call before ``originals[upto]`` that sends `sent`; `changes`: the
        chain's `Sent`, already updated to `sent` (pass it at every call or at none)."""
        if upto < self.upto:
            raise ValueError(f"calls must come in ascending order ({upto} after {self.upto})")
        now, removed, added = sent_changes(self.sent, sent, changes)
        for message in removed:
            self._send(message, -1)
        for message in added:
            self._send(message, 1)
        self.sent = now
        for i in range(self.upto, upto):
            if not self.whole[self.originals[i].id]:
                self._original(i, 1)
        for fact, _ in self.arrivals[bisect_left(self.arrival_at, self.upto):bisect_left(self.arrival_at, upto)]:
            self._want(fact, 1)
        self.upto = upto
        self._reorder()
        missing = tuple(fact for _, fact in self.order[:MISSING])
        return FactRecall(self.kept / self.total if self.total else None, self.total, self.kept, missing)

    def _send(self, message: Message, sign: int) -> None:
        facts = self.facts.contains(message)  # distinct facts: each moves its count by one
        if facts:
            found, get = self.found, self.found.get
            if sign > 0:
                flipped = [fact for fact in facts if not get(fact)]  # held by no sent message until now
                found.update(facts)
            else:
                found.subtract(facts)
                flipped = [fact for fact in facts if not get(fact)]  # held by no sent message any more
            for fact in flipped:
                if self.wanted[fact]:
                    self.kept += sign
                    self.dirty.add(fact)
        if message.mark is not None:
            return
        before = self.whole[message.id]
        self.whole[message.id] += sign
        if (before == 0) != (self.whole[message.id] == 0):  # the id became whole, or stopped being
            for i in self.by_id.get(message.id, ()):
                if i < self.upto:
                    self._original(i, -sign)

    def _original(self, i: int, sign: int) -> None:
        for fact in self.facts.auto_facts(self.originals[i]):
            if fact:
                self._want(fact, sign)
                self.dirty.add(fact)

    def _want(self, fact: str, sign: int) -> None:
        before = self.wanted[fact]
        self.wanted[fact] += sign
        self.dirty.add(fact)
        if (before == 0) != (self.wanted[fact] == 0):
            self.total += sign
            self.kept += sign if self.found[fact] else 0

    def _reorder(self) -> None:
        """Place the facts whose standing changed in the ordered list of missing ones."""
        for fact in self.dirty:
            old = self.placed.pop(fact, None)
            if old is not None:
                del self.order[bisect_left(self.order, (old, fact))]
            if self.wanted[fact] and not self.found[fact]:
                key = self._key(fact)
                self.placed[fact] = key
                insort(self.order, (key, fact))
        self.dirty.clear()

    def _key(self, fact: str) -> tuple[int, int, int]:
        """Where `fact` first comes in `fact_recall`'s list of wanted facts: ground facts first (in
        their order), then the facts of the not-whole originals by message and place in it."""
        for rank, (text, index) in enumerate(self.ground):
            if text == fact and index < self.upto:
                return (0, rank, 0)
        for i, at in self.sources.get(fact, ()):
            if i >= self.upto:
                break
            if not self.whole[self.originals[i].id]:
                return (1, i, at)
        raise AssertionError(f"a wanted fact with no source: {fact!r}")


def _sources(facts: Any, originals: Sequence[Message]) -> dict[str, list[tuple[int, int]]]:
    """Fact -> the originals stating it, as (message index, place among its facts), ascending
    (built once per conversation and kept with its facts)."""
    if facts.sources is None:
        sources: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for i, message in enumerate(originals):
            for at, fact in enumerate(facts.auto_facts(message)):
                if fact and (not sources[fact] or sources[fact][-1][0] != i):
                    sources[fact].append((i, at))
        facts.sources = dict(sources)
    return facts.sources


__all__ = ["MISSING", "FactTracker"]
