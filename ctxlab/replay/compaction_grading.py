"""Every recorded compaction graded by what came after it, the agent's own beside the stand-ins.

For each compaction of ``meta.compactions`` (`ctxlab.metrics.compactions.recorded_compactions`):

- ``agent``: the context the agent really had right after it: the messages it carried over, its
  recorded summary and the kept tail ``messages[index:at]``; with the tool calls it then made,
  what it re-read or re-ran (`ctxlab.metrics.refetch`);
- each summarizing preset (`SUMMARIZING`) as ctxlab replays it on the same history at the same
  call: it is handed what the agent had just before the compaction (``messages[:at]`` for the
  first; for a later one the agent's context after the previous compaction plus what followed),
  with the provider usage the log recorded while the history is still the log's own, at the log's
  window (`log_window`) when it summarizes there, else at the largest window where it does
  (`StandinCall.summarized`: a preset would otherwise compact at another call, and the point is the
  same history). Trigger, tail, passes, summary cap and voice are the preset's own; only a trigger
  that no window moves (a fixed token count, `anthropic_compaction`'s 150k) is made to fire here.

Both are graded over the same calls with `ctxlab.metrics.compaction_grades.grade`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.compaction_grades import Grade, Segment, grade, segments
from ctxlab.metrics.compactions import RecordedCompaction, recorded_compactions
from ctxlab.metrics.needed import SessionNeeds
from ctxlab.metrics.refetch import Refetch, observed_refetches
from ctxlab.replay.compaction_points import log_window
from ctxlab.replay.steps import recorded_calls
from ctxlab.store.schema import CompactionGradeRow
from ctxlab.strategies import BaseStrategy, CompressionResult, get_strategy
from ctxlab.tokens import TokenCounter, get_counter

AGENT = "agent"
SUMMARIZING = ("pi", "codex", "claude_code", "langchain_summarization", "openhands", "inspect_summary", "gemini_cli",
               "opencode", "cline", "aider", "goose", "letta", "anthropic_compaction")
OWN_PRESET = {"claude_code": "claude_code", "pi": "pi", "codex": "codex", "openhands": "openhands",
              "gemini_cli": "gemini_cli"}  # log format -> the preset that follows that agent


class Graded(NamedTuple):
    """One compaction and one candidate: its store row, and in memory the grade (None on error)
    and, for the agent, the refetches it made."""

    row: CompactionGradeRow
    grade: Grade | None = None
    refetches: tuple[Refetch, ...] = ()


def agent_context(record: RecordedCompaction, messages: Sequence[Message]) -> tuple[Message, ...]:
    """The agent's context right after its compaction: carried-over messages, summary, kept tail."""
    ids = tuple(m.id for m in messages[:record.index])
    summary = Message(role="user", content=record.summary, id=f"compaction-{record.number}", mark="summary",
                      source_ids=ids)
    return (*record.kept, summary, *messages[record.index:record.at])


def grade_compactions(conversation: Conversation, counter: str | TokenCounter = "o200k_base",
                      candidates: Sequence[str] = SUMMARIZING, window: int | None = None) -> list[Graded]:
    """The agent's context and each candidate preset, graded at every recorded compaction of
    `conversation` (module docstring); a bad record or a failing preset is a row with its error."""
    count = get_counter(counter) if isinstance(counter, str) else counter
    records = recorded_compactions(conversation)
    if not records:
        return []
    needs = SessionNeeds.build(conversation, count)
    spans = segments(conversation, [(r.index, r.at) for r in records])
    agent = str((conversation.meta or {}).get("format") or "") or None
    out: list[Graded] = []
    before: tuple[Message, ...] = ()  # the agent's context after its previous compaction
    last_at = 0
    for record, span in zip(records, spans, strict=True):
        base = CompactionGradeRow(conversation.id, record.number, record.index, record.at, agent,
                                  _trigger(conversation, record.number))
        if span is None or not record.summary:
            out.append(Graded(base._replace(error="no usable index, at or summary in the compaction record")))
            continue
        history = (*before, *conversation.messages[last_at:span.at])
        after = agent_context(record, conversation.messages)
        refetches = tuple(observed_refetches(conversation.messages, span.index, span.at, span.stop, count))
        graded = grade(needs, span, after)
        out.append(Graded(_row(base, graded, after, record.summary, count, refetches), graded, refetches))
        pristine = not before
        out += [_standin(conversation, needs, span, base, name, history, pristine, count, window)
                for name in candidates]
        before, last_at = after, span.at
    return out


def _standin(conversation: Conversation, needs: SessionNeeds, span: Segment, base: CompactionGradeRow, name: str,
             history: tuple[Message, ...], pristine: bool, counter: TokenCounter, window: int | None) -> Graded:
    row = base._replace(candidate=name)
    recorded = recorded_calls(conversation, span.at) if pristine else ()
    try:
        at = StandinCall(get_strategy(name), history, counter, tuple(conversation.tools or ()), recorded)
        size = window or log_window(conversation)
        found = at.summarized(size)
        if found is None:  # a trigger the window does not move (a fixed token count): made to fire here
            found = at._replace(strategy=get_strategy(name, trigger="always")).summarized(size)
        if found is None:
            return Graded(row._replace(error=f"{name} writes no summary of this history"))
        result = found[1]
    except Exception as exc:  # one preset failing on one history is a row with its reason, not a crash
        return Graded(row._replace(error=f"{type(exc).__name__}: {exc}"))
    graded = grade(needs, span, result.messages)
    return Graded(_row(row, graded, result.messages, result.summary or "", counter, None), graded)


class StandinCall(NamedTuple):
    """One preset at one call of a log: the history it is handed, with the tools and recorded usage."""

    strategy: BaseStrategy
    history: tuple[Message, ...]
    counter: TokenCounter
    tools: tuple
    recorded: tuple

    def at(self, window: int) -> CompressionResult | None:
        """The compression at `window` when it wrote a new summary, else None."""
        result = self.strategy.compress(self.history, window, counter=self.counter, tools=self.tools,
                                        recorded=self.recorded)
        old = set(self.history)
        return result if any(m.mark == "summary" and m not in old for m in result.messages) else None

    def summarized(self, window: int) -> tuple[int, CompressionResult] | None:
        """(window, compression) at `window` when the preset summarizes there, else at the largest
        smaller window where it does (a smaller window compacts sooner); None when none does."""
        found = self.at(window)
        if found is not None:
            return window, found
        low, high = 0, window  # at(high) wrote none; at(low) is the best found (0: none yet)
        best = None
        while high - low > 1:
            mid = (low + high) // 2
            result = self.at(mid)
            low, high, best = (mid, high, result) if result is not None else (low, mid, best)
        return None if best is None else (low, best)


def _row(row: CompactionGradeRow, g: Grade, after: Sequence[Message], summary: str, counter: TokenCounter,
         refetches: Sequence[Refetch] | None) -> CompactionGradeRow:
    return row._replace(
        calls=g.calls, needed=g.needed, needed_kept=g.needed_kept, needed_in_context=g.needed_in_context,
        needed_recall=g.needed_recall, in_context_recall=g.in_context_recall, non_regex=g.non_regex,
        non_regex_kept=g.non_regex_kept, non_regex_recall=g.non_regex_recall, instructions=g.instructions,
        instructions_kept=g.instructions_kept, instruction_survival=g.instruction_survival,
        summary_tokens=counter.count(summary) if summary else 0, context_tokens=counter.count_messages(after),
        refetch_observed_calls=None if refetches is None else len(refetches),
        refetch_observed_tokens=None if refetches is None else sum(r.tokens for r in refetches),
        refetch_model_tokens=g.refetch_model_tokens, lost=json.dumps(list(g.lost), ensure_ascii=False))


def _trigger(conversation: Conversation, number: int) -> str | None:
    """The record's trigger (Claude Code: ``auto`` or ``manual``), None when the log does not say."""
    records = (conversation.meta or {}).get("compactions") or ()
    record = records[number] if number < len(records) and isinstance(records[number], dict) else {}
    how = record.get("trigger")
    return how if isinstance(how, str) and how else None


__all__ = ["AGENT", "OWN_PRESET", "SUMMARIZING", "Graded", "StandinCall", "agent_context", "grade_compactions"]
