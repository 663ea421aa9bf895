"""Grounded measures of what a policy sends, judged by what the agent's recorded next action used.

For the call before assistant message ``t``, with ``S`` the messages the policy sends:

- **needed-context recall**: the share of the call's needed strings (`ctxlab.metrics.needed`) that
  occur in ``S``; split into *old* ones (held by no message new since the previous call), by kind
  (path, identifier, number, other) and *regex* ones (`extract_facts` finds them);
- **in context**: a needed string counts only when ``S`` also holds one of the lines it stood on
  (at most 80 characters either side), so a bare list of identifiers does not score;
- **refetch cost**: for the needed strings ``S`` lost, the tokens of the smallest earlier message
  holding each (a message counted once per call): what getting them back costs the agent;
- **instruction survival**: the share of the user's instructions stated before ``t``
  (`ctxlab.metrics.instructions`) whose sentence ``S`` still holds.

`GroundedEvaluator` is incremental: what each message holds is computed once per message (by
content) and a call only applies the messages it adds or removes against the previous call, so a
session of calls costs about one pass over the messages that change. The future is only used to
grade: a strategy never sees `SessionNeeds`.

    needs = SessionNeeds.build(conversation, get_counter("o200k_base"))
    evaluator = GroundedEvaluator(needs)
    measures = [evaluator.measure(t, sent) for t, sent in calls]    # sent: what the policy sends
    pooled = pool(measures)
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.facts import message_text, raw_text
from ctxlab.metrics.needed import Need, SessionNeeds
from ctxlab.metrics.sent import Sent
from ctxlab.metrics.sent import changes as sent_changes
from ctxlab.store.schema import GroundedRow
from ctxlab.tokens import TokenCounter, get_counter

_VIEW_ENTRIES = 50_000


class CallMeasures(GroundedRow):
    """The grounded measures of one call: the store's `GroundedRow` whose ``unit`` is the call's
    index ``t`` (`grounded_row` renumbers it); counts, with the lost strings and instructions as
    JSON lists (`lost`, `lost_instructions` decode them). Recalls are kept / total; `pool` pools
    them over calls."""

    __slots__ = ()

    @property
    def call(self) -> int:
        return self.unit

    @property
    def needed_recall(self) -> float | None:
        return self.needed_kept / self.needed_total if self.needed_total else None

    @property
    def lost(self) -> tuple[str, ...]:
        """The needed strings the call did not send (the first 50)."""
        return tuple(json.loads(self.needed_lost))

    @property
    def lost_instructions(self) -> tuple[str, ...]:
        """The instructions stated before the call that it did not send (the first 50)."""
        return tuple(json.loads(self.instructions_lost))


class _View(NamedTuple):
    """What one message holds: needed strings, those with their context, instruction numbers."""

    strings: frozenset[str]
    framed: frozenset[str]
    instructions: frozenset[int]


class GroundedEvaluator:
    """Measures the calls of one session under one policy, in any order (best: ascending)."""

    def __init__(self, needs: SessionNeeds) -> None:
        self.needs = needs
        self._sent: set[Message] = set()
        self._strings: Counter[str] = Counter()
        self._framed: Counter[str] = Counter()
        self._instructions: Counter[int] = Counter()

    def measure(self, t: int, sent: Sequence[Message], *, changes: Sent | None = None) -> CallMeasures:
        """The measures of the call before message `t` that sends `sent`; `changes`: the chain's
        `Sent`, already updated to `sent` (pass it at every call or at none)."""
        self._update(sent, changes)
        needs = self.needs.calls.get(t, ())
        counts: Counter[str] = Counter()
        lost, refetch = [], set()
        for need in needs:
            kept, framed = self._strings[need.text] > 0, self._framed[need.text] > 0
            _count(counts, need, kept, framed)
            if not kept:
                lost.append(need.text)
                smallest = self.needs.holdings[need.text].smallest_before(t)
                if smallest is not None:
                    refetch.add(smallest[1])
        # Instructions are listed in the order they were first stated: those before t are a prefix.
        stated = self.needs.instructions[:bisect_left(self.needs.instruction_indices, t)]
        dropped = [text for i, (_, text) in enumerate(stated) if self._instructions[i] <= 0]
        return CallMeasures(
            t, len(needs), counts["kept"], counts["framed"], counts["old"], counts["old_kept"], counts["old_framed"],
            counts["regex"], counts["regex_kept"], counts["regex_framed"], counts["path"], counts["path_kept"],
            counts["identifier"], counts["identifier_kept"], counts["number"], counts["number_kept"], counts["other"],
            counts["other_kept"], sum(self.needs.tokens[j] for j in refetch), len(refetch), len(stated),
            len(stated) - len(dropped), _json(lost), _json(dropped))

    def _update(self, sent: Sequence[Message], changes: Sent | None) -> None:
        now, removed, added = sent_changes(self._sent, sent, changes)
        for message in removed:
            self._apply(self._view(message), -1)
        for message in added:
            self._apply(self._view(message), 1)
        self._sent = now

    def _apply(self, view: _View, sign: int) -> None:
        for s in view.strings:
            self._strings[s] += sign
        for s in view.framed:
            self._framed[s] += sign
        for i in view.instructions:
            self._instructions[i] += sign

    def _view(self, message: Message) -> _View:
        # Shared by every policy replayed on the session: an original message is looked at once.
        views = self.needs.views
        view = views.get(message)
        if view is None:
            if len(views) >= _VIEW_ENTRIES:
                views.clear()
            view = views[message] = _view_of(self.needs, message)
        return view


def _view_of(needs: SessionNeeds, message: Message) -> _View:
    """An original message holds its own lines; any other (truncated, summary, marker) is searched."""
    text = message_text(message)
    instructions = frozenset(i for i, (_, sentence) in enumerate(needs.instructions) if sentence in text)
    index = needs.index.get(message) if message.mark is None else None
    if index is not None:
        held = needs.held_by.get(index, frozenset())
        return _View(held, held, instructions)
    held = needs.held_in(text, raw_text(message))
    framed = frozenset(s for s in held if needs.holdings[s].framed_in(s, text))
    return _View(held, framed, instructions)


def _json(texts: Sequence[str]) -> str:
    return json.dumps(list(texts[:50]), ensure_ascii=False) if texts else "[]"


def _count(counts: Counter[str], need: Need, kept: bool, framed: bool) -> None:
    counts["kept"] += kept
    counts["framed"] += framed
    counts[need.kind] += 1
    counts[f"{need.kind}_kept"] += kept
    for flag, name in ((need.old, "old"), (need.regex, "regex")):
        if flag:
            counts[name] += 1
            counts[f"{name}_kept"] += kept
            counts[f"{name}_framed"] += framed


class Pooled(NamedTuple):
    """Measures pooled over calls (sums of kept over sums of totals; None where nothing counted)."""

    calls: int
    needed: int
    needed_recall: float | None
    in_context_recall: float | None
    old_recall: float | None
    regex_recall: float | None
    non_regex_recall: float | None
    refetch_tokens: int
    instruction_survival: float | None
    limit_recall: float | None = None


def pool(measures: Iterable[CallMeasures]) -> Pooled:
    """Pool per-call measures (one session or many): recall over all needed strings of all calls,
    so a policy that forgets early and remembers late is not flattered."""
    rows = list(measures)
    total: Counter[str] = Counter()
    for m in rows:
        total.update({k: v for k, v in m._asdict().items() if isinstance(v, int) and k != "unit"})

    def share(kept: int, of: int) -> float | None:
        return kept / of if of else None

    return Pooled(len(rows), total["needed_total"], share(total["needed_kept"], total["needed_total"]),
                  share(total["needed_kept_in_context"], total["needed_total"]),
                  share(total["needed_old_kept"], total["needed_old_total"]),
                  share(total["needed_regex_kept"], total["needed_regex_total"]),
                  share(total["needed_kept"] - total["needed_regex_kept"],
                        total["needed_total"] - total["needed_regex_total"]),
                  total["refetch_tokens"], share(total["instructions_kept"], total["instructions_total"]),
                  share(total["limit_kept"], total["needed_total"]) if all(m.limit_kept is not None for m in rows)
                  else None)


def grounded_row(unit: int, measures: CallMeasures) -> GroundedRow:
    """The store row of one unit's measures."""
    return GroundedRow(unit, *measures[1:])


def evaluate(conversation: Conversation, calls: Iterable[tuple[int, Sequence[Message]]],
             counter: TokenCounter | str = "o200k_base") -> list[CallMeasures]:
    """The measures of a sequence of ``(t, sent)`` calls of one session (the tuner's entry point)."""
    counter = get_counter(counter) if isinstance(counter, str) else counter
    evaluator = GroundedEvaluator(SessionNeeds.build(conversation, counter))
    return [evaluator.measure(t, sent) for t, sent in calls]


__all__ = ["CallMeasures", "GroundedEvaluator", "Pooled", "SessionNeeds", "evaluate", "grounded_row", "pool"]
