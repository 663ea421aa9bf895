"""The facts a result must recall, from a conversation's facts laid out once.

`ctxlab.metrics.facts.fact_recall` wants the facts of every original message before ``upto`` that
the result does not keep whole, deduplicated in the order they come (message by message, each
message's facts in order). A final replay scores every policy and window of a conversation, and
every recorded compaction, against a prefix of the same messages with only the kept messages
left out; walking every message's facts each time costs the length of the conversation per score.
`FactStream` lays the facts out once, in order, each only at its first place: a score then takes
the stream's slices between the whole messages, and moves the few facts first stated by a whole
message to their first place in a message that is not.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Sequence


class FactStream:
    """A conversation's per-message facts, each at its first place (see the module docstring)."""

    def __init__(self, facts: Sequence[Sequence[str]], ids: Sequence[str]) -> None:
        """`facts`: each message's facts in order (empty ones are ignored); `ids`: its message ids."""
        self.stream: list[str] = []
        self.offsets = [0]  # message j's first facts are stream[offsets[j]:offsets[j + 1]]
        self.places: dict[str, list[tuple[int, int]]] = {}  # fact -> (message, place in its facts)
        for j, found in enumerate(facts):
            for at, fact in enumerate(found):
                if not fact:
                    continue
                places = self.places.get(fact)
                if places is None:
                    self.places[fact] = [(j, at)]
                    self.stream.append(fact)
                elif places[-1][0] != j:
                    places.append((j, at))
            self.offsets.append(len(self.stream))
        self.by_id: dict[str, list[int]] = {}
        for j, message_id in enumerate(ids):
            self.by_id.setdefault(message_id, []).append(j)

    def wanted(self, upto: int | None, whole: Collection[str]) -> list[str]:
        """The facts of the messages before `upto` (all: None) whose id is not in `whole`, each once,
        in the order ``dict.fromkeys`` over their facts, message by message, would give."""
        end = len(range(len(self.offsets) - 1)[:upto])  # as ``messages[:upto]`` slices
        skipped = sorted({j for i in whole for j in self.by_id.get(i, ()) if j < end})
        out: list[str] = []
        start = 0
        for j in skipped:  # the stream between whole messages, as it is
            out.extend(self.stream[self.offsets[start]:self.offsets[j]])
            start = j + 1
        out.extend(self.stream[self.offsets[start]:self.offsets[end]])
        moved = self._moved(skipped, end)
        if not moved:
            return out
        first = self.places
        out.extend(moved)
        out.sort(key=lambda fact: moved.get(fact) or first[fact][0])
        return out

    def _moved(self, skipped: list[int], end: int) -> dict[str, tuple[int, int]]:
        """Facts first stated by a skipped message -> their first place in a message that is not."""
        moved: dict[str, tuple[int, int]] = {}
        for j in skipped:
            for fact in self.stream[self.offsets[j]:self.offsets[j + 1]]:
                for place in self.places[fact]:
                    if place[0] >= end:
                        break
                    k = bisect_left(skipped, place[0])
                    if k == len(skipped) or skipped[k] != place[0]:
                        moved[fact] = place
                        break
        return moved


__all__ = ["FactStream"]
