"""Recorded compactions: the agent's own compaction beside ctxlab's strategies at the same point.

An agent log's ``meta.compactions`` (``[{"index", "at", "summary", "tokens_before"}]``) says that
when the conversation had reached ``messages[:at]`` the agent replaced ``messages[:index]`` by
`summary` and kept ``messages[index:at]`` verbatim (Claude Code and Codex keep nothing, so
``index == at``; pi and OpenHands keep recent messages), plus ``kept_messages`` when the agent
recorded what it carried over (a Codex ``replacement_history``). The agent's context after the
compaction is therefore those messages, the summary and the verbatim tail. For each compaction, ctxlab compresses the same
history, ``messages[:at]``, with its own strategies at a window equal to the size of that context,
and scores every candidate the same way:

* size: tokens of the context that replaces the history (`tokens_after`, reply priming included,
  tool definitions left out: they are not part of the history) and of its summary text;
* fact recall: the history's facts (ground truth before ``at`` plus facts auto-extracted from
  every message before it, `ctxlab.metrics.facts`) found in that context. Every candidate is
  scored against the same facts, so the recalls compare directly.

The default strategies are `compaction` (the offline extractive summarizer, recent rounds kept
verbatim) and `sliding_window` (truncation, no summary), so the agent's summary is measured
against both a summarizer and a plain window of the same size. OpenHands condensers also keep
the first events of a session; the log does not say which messages those are, so they count as
replaced here, which slightly understates that agent's recall.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.facts import fact_recall
from ctxlab.store.schema import RecordedCompactionRow
from ctxlab.strategies import BaseStrategy, get_strategy
from ctxlab.tokens import TokenCounter, get_counter

DEFAULT_STRATEGIES = ("compaction", "sliding_window")
AGENT = "agent"
KEYS = RecordedCompactionRow._fields
_MISSING_SHOWN = 50


class RecordedCompaction(NamedTuple):
    """One compaction from ``meta.compactions``: its position in the list, where the summarized
    part ends (`index`), where the compaction happened (`at`, `index` when not recorded), the
    summary and the agent's own token count before it."""

    number: int
    index: int | None  # type: ignore[assignment]  # a field named index shadows tuple.index, on purpose
    at: int | None
    summary: str
    tokens_before: int | None
    kept: tuple[Message, ...] = ()


class _Replacement(NamedTuple):
    """What replaces the region, shaped like a `CompressionResult` for `fact_recall`: every region
    message counts as replaced, so all candidates are scored against the same facts."""

    messages: tuple[Message, ...]
    input_ids: tuple[str, ...]
    dropped_ids: tuple[str, ...]
    truncated_ids: tuple[str, ...] = ()


def recorded_compactions(conversation: Conversation) -> list[RecordedCompaction]:
    """The conversation's ``meta.compactions``, in order (malformed fields, or a record that is not
    an object, become None or "", so the record still shows, as an error row)."""
    out = []
    for number, record in enumerate((conversation.meta or {}).get("compactions") or ()):
        record = record if isinstance(record, Mapping) else {}
        index, at = _int(record.get("index")), _int(record.get("at"))
        out.append(RecordedCompaction(number, index, index if at is None else at, str(record.get("summary") or ""),
                                      _int(record.get("tokens_before")), _kept(record.get("kept_messages"), number)))
    return out


def recorded_compaction_rows(conversation: Conversation, counter: str | TokenCounter = "o200k_base",
                             strategies: Sequence[str | BaseStrategy] = DEFAULT_STRATEGIES
                             ) -> list[RecordedCompactionRow]:
    """One row per recorded compaction and candidate (``agent`` first, then each strategy).

    Row keys (`KEYS`, None where they do not apply): conversation_id, compaction (its position in
    ``meta.compactions``), cut_index and at_index (the record's ``index`` and ``at``), strategy,
    counter, tokens_before (``messages[:at]`` under `counter`), recorded_tokens_before (the agent's
    figure), window (the size of the agent's context after compaction, given to the strategies),
    tokens_after, summary_tokens, fits, fact_recall, facts_total, facts_kept, facts_missing (JSON,
    first 50), summary and error (a bad record or a failing strategy is a row with its error,
    never an exception).
    """
    count = get_counter(counter)
    # A spec string labels its rows as written (``compaction:keep_recent_rounds=1``).
    built = [(s, get_strategy(s)) if isinstance(s, str) else (s.name or type(s).__name__, s) for s in strategies]
    rows = []
    for record in recorded_compactions(conversation):
        rows += _rows(conversation, record, count, built)
    return [RecordedCompactionRow(**row) for row in rows]


def _rows(conversation: Conversation, record: RecordedCompaction, counter: TokenCounter,
          strategies: list[tuple[str, BaseStrategy]]) -> list[dict[str, Any]]:
    base = {**dict.fromkeys(KEYS), "conversation_id": conversation.id, "compaction": record.number,
            "cut_index": record.index, "at_index": record.at, "counter": counter.name,
            "recorded_tokens_before": record.tokens_before}
    n = len(conversation.messages)
    if record.index is None or record.at is None or not 0 < record.index <= record.at <= n or not record.summary:
        return [{**base, "strategy": AGENT, "error": "no usable index, at or summary in the compaction record"}]
    history = conversation.messages[:record.at]
    ids = tuple(m.id for m in history)
    summary = Message(role="user", content=record.summary, id=f"compaction-{record.number}", mark="summary",
                      source_ids=ids[:record.index])
    # The agent's context right after its compaction: messages it carried over (Codex's replacement
    # history keeps recent user messages before its summary), the summary, the verbatim tail.
    agent = (*record.kept, summary, *history[record.index:])
    base.update(tokens_before=counter.count_messages(history), window=counter.count_messages(agent))
    rows = [{**base, "strategy": AGENT, "window": None, "tokens_after": base["window"], "summary": record.summary,
             "summary_tokens": counter.count(record.summary), **_recall(conversation, agent, ids, record.at)}]
    return rows + [_strategy_row(conversation, history, ids, label, strategy, counter, base)
                   for label, strategy in strategies]


def _strategy_row(conversation: Conversation, history: Sequence[Message], ids: tuple[str, ...], label: str,
                  strategy: BaseStrategy, counter: TokenCounter, base: dict[str, Any]) -> dict[str, Any]:
    try:
        result = strategy.compress(history, base["window"], counter=counter)
    except Exception as exc:  # one strategy failing on one history is a row, not a crash
        return {**base, "strategy": label, "error": f"{type(exc).__name__}: {exc}"}
    return {**base, "strategy": label, "tokens_after": result.tokens_after, "fits": result.fits,
            "summary": result.summary, "summary_tokens": counter.count(result.summary) if result.summary else None,
            **_recall(conversation, result.messages, ids, len(history))}


def _recall(conversation: Conversation, messages: Sequence[Message], ids: tuple[str, ...],
            upto: int) -> dict[str, Any]:
    scored = fact_recall(conversation, _Replacement(tuple(messages), ids, ids), upto=upto)
    return {"fact_recall": scored.recall, "facts_total": scored.total, "facts_kept": scored.kept,
            "facts_missing": json.dumps(list(scored.missing[:_MISSING_SHOWN]), ensure_ascii=False)}


def _kept(value: Any, number: int) -> tuple[Message, ...]:
    """``kept_messages`` (``[{"role", "content"}]``) as messages; anything malformed is left out."""
    items = [v for v in value if isinstance(v, Mapping) and isinstance(v.get("content"), str)] \
        if isinstance(value, list) else []
    return tuple(Message(role=str(v["role"]) if v.get("role") in ("user", "assistant") else "system",
                         content=v["content"], id=f"compaction-{number}-kept-{i}") for i, v in enumerate(items))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
