"""A recorded compaction graded by what came after it: the grounded measures of a context over
the calls the agent made with it, up to its next compaction.

For a compaction with summarized part ``messages[:index]`` made at ``at``, the *segment* is the
calls before assistant messages ``t`` with ``at <= t < stop`` (``stop``: the next compaction's
``at``, else the end). A candidate is the context right after the compaction (the agent's:
carried-over messages, its summary and the kept tail; a stand-in's: what its preset sent); at call
``t`` it sends that context plus ``messages[at:t]``. Graded at each call:

- **needed**: the call's needed strings (`ctxlab.metrics.needed`) that ONLY the summarized part
  held: some message before ``index`` holds them, none in ``messages[index:t]`` does. Whether a
  candidate kept them depends on its summary (and whatever else it kept of that part) alone;
- **needed recall**, its **in-context** and **non-regex** splits (`ctxlab.metrics.grounded`);
- **modelled refetch**: the tokens of the smallest message holding each lost string (each message
  once per call), ctxlab's refetch model, summed over the segment;
- **instruction survival**: the user's instructions stated in the summarized part whose sentence
  the context right after the compaction still holds.

Calls are graded against the same `SessionNeeds` for every candidate, so the figures compare directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.facts import kept_text
from ctxlab.metrics.grounded import GroundedEvaluator, Pooled, pool
from ctxlab.metrics.needed import Need, SessionNeeds


class Segment(NamedTuple):
    """Where one compaction's context was used: summarized part ``messages[:index]``, made at
    ``at``, used by the calls before assistant messages in ``[at, stop)``."""

    index: int  # type: ignore[assignment]  # the compaction record's own name, shadowing tuple.index on purpose
    at: int
    stop: int


class Grade(NamedTuple):
    """One candidate context graded over one segment.

    Attributes:
        calls: calls in the segment.
        needed: (call, string) pairs only the summarized part held; `needed_kept` of them were
            sent, `needed_in_context` with one of their lines.
        non_regex: of `needed`, those `extract_facts` does not find; `non_regex_kept` sent.
        refetch_model_tokens: ctxlab's modelled cost of getting the lost ones back.
        instructions: instructions stated in the summarized part; `instructions_kept` survive.
        lost: the lost strings, first 50, in call order.
        per_call: (needed, kept) of each call, in order (for intervals over calls).
    """

    calls: int
    needed: int
    needed_kept: int
    needed_in_context: int
    non_regex: int
    non_regex_kept: int
    refetch_model_tokens: int
    instructions: int
    instructions_kept: int
    lost: tuple[str, ...]
    per_call: tuple[tuple[int, int], ...] = ()

    @property
    def needed_recall(self) -> float | None:
        return self.needed_kept / self.needed if self.needed else None

    @property
    def in_context_recall(self) -> float | None:
        return self.needed_in_context / self.needed if self.needed else None

    @property
    def non_regex_recall(self) -> float | None:
        return self.non_regex_kept / self.non_regex if self.non_regex else None

    @property
    def instruction_survival(self) -> float | None:
        return self.instructions_kept / self.instructions if self.instructions else None


def segments(conversation: Conversation, records: Sequence[tuple[int | None, int | None]]) -> list[Segment | None]:
    """The segment of each ``(index, at)`` record, in order (None for an unusable one): a segment
    ends where the next usable record's compaction happened."""
    n = len(conversation.messages)
    usable = [(index, at) if index is not None and at is not None and 0 < index <= at <= n else None
              for index, at in records]
    out: list[Segment | None] = []
    for k, record in enumerate(usable):
        later = [r[1] for r in usable[k + 1:] if r is not None]
        out.append(None if record is None else Segment(record[0], record[1], min([*later, n])))
    return out


def only_summarized(needs: SessionNeeds, t: int, index: int) -> tuple[Need, ...]:
    """The needs of call `t` held before `index` and by no message in ``[index, t)``."""
    return tuple(n for n in needs.calls.get(t, ()) if needs.holdings[n.text].any_in(0, index)
                 and not needs.holdings[n.text].any_in(index, t))


def grade(needs: SessionNeeds, segment: Segment, after: Sequence[Message]) -> Grade:
    """Grade the context `after` (right after the compaction) over `segment` (module docstring)."""
    messages = needs.conversation.messages
    calls = [t for t in sorted(needs.calls) if segment.at <= t < segment.stop]
    view = replace(needs, calls={t: only_summarized(needs, t, segment.index) for t in calls})
    evaluator = GroundedEvaluator(view)
    measures = [evaluator.measure(t, (*after, *messages[segment.at:t])) for t in calls]
    pooled: Pooled = pool(measures)
    totals = {k: sum(getattr(m, k) for m in measures) for k in ("needed_total", "needed_kept",
                                                                  "needed_kept_in_context", "needed_regex_total",
                                                                  "needed_regex_kept")}
    stated = [text for j, text in needs.instructions if j < segment.index]
    held = kept_text(after)
    lost = [s for m in measures for s in m.lost]
    return Grade(pooled.calls, totals["needed_total"], totals["needed_kept"], totals["needed_kept_in_context"],
                 totals["needed_total"] - totals["needed_regex_total"],
                 totals["needed_kept"] - totals["needed_regex_kept"], pooled.refetch_tokens, len(stated),
                 sum(text in held for text in stated), tuple(lost[:50]),
                 tuple((m.needed_total, m.needed_kept) for m in measures))


__all__ = ["Grade", "Segment", "grade", "only_summarized", "segments"]
