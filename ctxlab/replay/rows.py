"""Turning one compression (or its failure) into store rows: the unit, its per-reference fit and
its summary. Column names are the store's (`ctxlab.store.schema`)."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any

import pyarrow as pa

from ctxlab.messages import Conversation, Message
from ctxlab.metrics.fact_tracker import FactTracker
from ctxlab.metrics.sent import Sent
from ctxlab.replay import metrics
from ctxlab.replay.plan import Entry
from ctxlab.store.schema import ROW_TABLES, ROW_TYPES, arrow_schema
from ctxlab.strategies import CompressionResult
from ctxlab.tokens import TokenCounter

# Rows travel with their strings dictionary-encoded: a session repeats its labels, specs, summaries
# and missing facts from one call to the next (the plain strings were most of a long session's rows).
_SCHEMAS = {name: arrow_schema(cols, dictionary=True) for name, cols in ROW_TABLES.items()}
BATCH_ROWS = 4096


class Rows:
    """Row buffers for one work chunk, turned into Arrow tables at the end.

    Rows gather as dicts and move into Arrow once a table holds `batch_rows` of them (`seal`, which
    the replay calls between units), so a long session's rows never pile up as Python objects: a
    session of 1,200 calls through 31 policies made 150,000 row dicts, about 420 MB.
    """

    def __init__(self, batch_rows: int = BATCH_ROWS) -> None:
        self.tables: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self.sealed: dict[str, list[pa.Table]] = defaultdict(list)
        self.batch_rows = batch_rows
        self.errors = 0

    def add(self, table: str, row: dict[str, Any]) -> None:
        if table == "result_rows" and row["status"] != "ok":
            self.errors += 1
        self.tables[table].append(row)

    def add_typed(self, key: Mapping[str, Any], row: Any) -> None:
        """A metric's typed row (`ctxlab.store.schema.ROW_TYPES`) in its table, under the run key."""
        self.tables[ROW_TYPES[type(row)]].append({**key, **row._asdict()})

    def seal(self, *, full_only: bool = True) -> None:
        """Move the buffered rows of every table holding `batch_rows` (or any, without `full_only`)
        into Arrow. Rows already added must not change after this (call it between units)."""
        for name, rows in self.tables.items():
            if rows and (len(rows) >= self.batch_rows or not full_only):
                # Arrow reads the row dicts itself (absent keys are nulls), 4x faster than column lists.
                self.sealed[name].append(pa.Table.from_pylist(rows, schema=_SCHEMAS[name]))
                self.tables[name] = []

    def to_arrow(self) -> dict[str, pa.Table]:
        self.seal(full_only=False)
        return {name: pa.concat_tables(parts) for name, parts in self.sealed.items()}


@dataclass
class ConversationCounts:
    """Per-message counts of one conversation under each counter, as prefix sums, so the tokens of
    any history ``messages[:t]`` cost one lookup in per-turn replay."""

    conversation: Conversation
    counters: Mapping[str, TokenCounter]
    _prefix: dict[str, tuple[list[int], int]] = field(default_factory=dict)

    def _get(self, name: str) -> tuple[list[int], int]:
        if name not in self._prefix:
            c = self.counters[name]
            counts = [c.count_message(m) for m in self.conversation.messages]
            self._prefix[name] = ([0, *accumulate(counts)], c.overhead(self.conversation.tools))
        return self._prefix[name]

    def overhead(self, name: str) -> int:
        """The fixed tokens of a request (reply priming, tool definitions) under counter `name`;
        computed once per conversation, since counters do not cache their tool-schema counts."""
        return self._get(name)[1]

    def history(self, name: str, upto: int | None = None) -> int:
        """Tokens of ``messages[:upto]`` sent as a request (overhead included)."""
        prefix, overhead = self._get(name)
        return prefix[len(prefix) - 1 if upto is None else upto] + overhead


@dataclass(frozen=True)
class Quality:
    """The quality metric functions a run computes (None where the run skips them)."""

    fact_recall: Callable[..., Any] | None
    summary_metrics: Callable[..., Mapping[str, Any]] | None


@dataclass
class Unit:
    """Where one compression sits in the run: identity columns shared by its rows."""

    run_id: str
    dataset: str
    seq: int
    unit: int
    entry: Entry
    window: int
    mode: str
    turn: int
    upto: int | None

    def key(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "dataset": self.dataset, "seq": self.seq, "unit": self.unit}


def unit_rows(rows: Rows, u: Unit, conv: Conversation, counts: ConversationCounts,
              references: Sequence[tuple[str, TokenCounter]], context: Sequence[Message],
              result: CompressionResult | None, error: str | None, latency_ms: float,
              quality: Quality, summary_cache: dict, facts: FactTracker | None = None,
              sent: Sent | None = None) -> None:
    """Measure one compression against the original history and append its rows; `facts` scores the
    regex fact recall of a per-turn chain's calls incrementally (the same figures as `fact_recall`);
    `sent`: the chain's `Sent`, already updated to this result (with `facts`, pass it at every call)."""
    originals = conv.messages if u.upto is None else conv.messages[:u.upto]
    before = counts.history(u.entry.counter, u.upto)
    row: dict[str, Any] = {
        **u.key(), "conversation_id": conv.id, "strategy": u.entry.strategy, "label": u.entry.label,
        "params": u.entry.spec_json, "counter": u.entry.counter, "window": u.window, "mode": u.mode,
        "turn": u.turn, "messages_in": len(originals), "input_messages": len(context),
        "tokens_before": before, "latency_ms": latency_ms,
        "status": "ok" if result is not None else "error", "error": error,
    }
    if result is None:
        rows.add("result_rows", row)
        for name, _ in references:
            rows.add("result_refs", {**u.key(), "reference": name,
                                     "reference_tokens_before": counts.history(name, u.upto)})
        return
    kept = result.messages
    marks = metrics.marks_by_id(kept)
    acc = metrics.accounting(originals, kept, marks)
    tools = metrics.tool_integrity(kept, sent)
    system_kept, user_kept = metrics.pinned_kept(originals, kept, marks)
    usage = metrics.llm_usage(result.events)
    row.update(
        tokens_input=result.tokens_before, tokens_after=result.tokens_after,
        retained_ratio=metrics.retained_ratio(before, result.tokens_after), fits=result.fits,
        reason=result.reason, messages_kept=acc.kept, messages_truncated=acc.truncated,
        messages_dropped=acc.dropped, messages_added=acc.added, tool_pairs_intact=tools.intact,
        orphan_calls=tools.orphan_calls, orphan_results=tools.orphan_results, system_kept=system_kept,
        newest_user_kept=user_kept, has_summary=result.summary is not None, llm_calls=usage.calls,
        llm_input_tokens=usage.input_tokens, llm_output_tokens=usage.output_tokens,
        llm_cost_usd=usage.cost_usd, llm_latency_ms=usage.latency_ms)
    problems = []
    effective = result
    tracked = facts is not None and u.upto is not None
    # Re-expressed over the originals only for a measure that reads its losses (a summary's are only
    # read when its metrics are scored).
    scored = result.summary is not None and quality.summary_metrics is not None
    if u.upto is not None and ((quality.fact_recall is not None and not tracked) or scored):
        effective = metrics.against_originals(result, originals, before)
    if quality.fact_recall is not None:
        try:
            fr = (facts.measure(u.upto, kept, changes=sent) if facts is not None and u.upto is not None
                  else quality.fact_recall(conv, effective, upto=u.upto))
            row.update(fact_recall=fr.recall, facts_total=fr.total, facts_kept=fr.kept,
                       facts_missing=json.dumps(list(fr.missing)[:50], ensure_ascii=False))
        except Exception as exc:  # a metric bug must not cost the compression's row
            problems.append(f"fact_recall: {type(exc).__name__}: {exc}")
    if result.summary is not None:
        problems += _summary_row(rows, u, conv, effective, row, quality, summary_cache,
                                 counts.counters[u.entry.counter])
    row["metric_error"] = "; ".join(problems) or None
    rows.add("result_rows", row)
    strategy_counter = counts.counters[u.entry.counter]
    for name, ref in references:
        # Measured with the strategy's own counter, the result's count is already exact.
        after = (result.tokens_after if ref is strategy_counter else
                 sent.tokens(ref) + counts.overhead(name) if sent is not None
                 else metrics.request_tokens(ref, kept, overhead=counts.overhead(name)))
        rows.add("result_refs", {**u.key(), "reference": name, "reference_tokens_before": counts.history(name, u.upto),
                                 "reference_tokens_after": after, "fits_reference": metrics.fits(after, u.window)})


def _summary_row(rows: Rows, u: Unit, conv: Conversation, effective: CompressionResult, row: dict[str, Any],
                 quality: Quality, cache: dict, counter: TokenCounter) -> list[str]:
    """Append the summary and its metrics; the same summary over the same losses is scored once
    (per-turn replay carries an unchanged summary across many turns)."""
    key = (effective.summary, effective.dropped_ids, effective.truncated_ids)
    scored: Mapping[str, Any] = cache.get(key, {})
    problems = []
    if key not in cache and quality.summary_metrics is not None:
        try:
            scored = cache[key] = dict(quality.summary_metrics(conv, effective))
        except Exception as exc:
            problems.append(f"summary_metrics: {type(exc).__name__}: {exc}")
    tokens = scored.get("summary_tokens")
    row["summary_tokens"] = int(tokens) if tokens is not None else counter.count(effective.summary or "")
    rows.add("summaries", {
        **u.key(), "conversation_id": conv.id, "strategy": u.entry.strategy, "label": u.entry.label,
        "counter": u.entry.counter, "window": u.window, "mode": u.mode, "turn": u.turn,
        "summary": effective.summary, "summary_tokens": row["summary_tokens"],
        "metrics": json.dumps(scored, default=float) if scored else None})
    return problems
