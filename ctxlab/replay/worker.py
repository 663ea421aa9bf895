"""The per-conversation job, run in worker processes (local pool or Ray tasks) or in-process.

A worker builds its strategies and counters once per run (`_state`) and keeps them: counters
cache counts per message, so every strategy, window and turn reuses one tokenization. A chunk of
conversations comes back as Arrow tables, compact to send and ready for a bulk insert.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import pyarrow as pa

from ctxlab import caches
from ctxlab.messages import Conversation
from ctxlab.metrics.compactions import recorded_compaction_rows
from ctxlab.metrics.estimator import conversation_rows, message_rows
from ctxlab.metrics.fact_tracker import FactTracker
from ctxlab.metrics.facts import fact_recall
from ctxlab.metrics.grounded import GroundedEvaluator, SessionNeeds, grounded_row
from ctxlab.metrics.limit import limit_kept
from ctxlab.metrics.provider import provider_rows
from ctxlab.metrics.sent import Sent
from ctxlab.metrics.summary import summary_metrics
from ctxlab.replay.plan import WorkSpec
from ctxlab.replay.pricing import Chain, Pricer, recorded_outputs
from ctxlab.replay.rows import ConversationCounts, Quality, Rows, Unit, unit_rows
from ctxlab.replay.steps import replay_steps
from ctxlab.strategies import STRATEGIES, BaseStrategy, StrategySpec
from ctxlab.tokens import TokenCounter, get_counter


class ChunkResult(NamedTuple):
    """What a worker sends back for one chunk."""

    dataset: str
    tables: dict[str, pa.Table]
    conversations: int
    units: int
    errors: int
    notes: tuple[str, ...]


@dataclass
class _State:
    strategies: list[BaseStrategy]
    counters: dict[str, TokenCounter]
    references: list[tuple[str, TokenCounter]]
    estimators: list[str]
    quality: Quality
    pricer: Pricer | None


_STATES: dict[str, _State] = {}


def prepare(spec: WorkSpec) -> tuple[str, ...]:
    """Build a run's strategies and counters in this process (forked workers inherit them)."""
    _state(spec)
    return ()


def _state(spec: WorkSpec) -> _State:
    state = _STATES.get(spec.run_id)
    if state is None:
        state = _STATES[spec.run_id] = build_state(spec)
    return state


def build_state(spec: WorkSpec) -> _State:
    """A run's strategies, counters, quality functions and pricer, built now (not kept: the tuner
    builds one per setting and drops it)."""
    names = dict.fromkeys([*(e.counter for e in spec.entries), *spec.references, *spec.estimators])
    counters = {n: get_counter(n) for n in names}
    return _State(
        strategies=[STRATEGIES.build(StrategySpec.from_json(e.spec_json).to_mapping()) for e in spec.entries],
        counters=counters, references=[(n, counters[n]) for n in spec.references],
        estimators=list(dict.fromkeys([*(e.counter for e in spec.entries), *spec.estimators])),
        quality=Quality(fact_recall, summary_metrics if spec.summaries else None) if spec.quality
        else Quality(None, None),
        pricer=Pricer.build(spec.price_models, counters[spec.references[0]]) if spec.price_models else None)


class Session(NamedTuple):
    """What a replay computes once per conversation, whatever the strategies and budgets: counts
    per message as prefix sums, what each recorded action needed (the grader's, never handed to a
    strategy) and the provider's recorded output tokens. The tuner keeps one per session across
    the settings it evaluates; a replay builds it per conversation."""

    counts: ConversationCounts
    needs: SessionNeeds | None
    outputs: Mapping[int, int]


def prepare_session(conv: Conversation, counters: Mapping[str, TokenCounter], reference: TokenCounter, *,
                    grounded: bool, priced: bool) -> Session:
    """The `Session` of `conv`: `counters` by name (a mapping that may grow as strategies need
    more), `reference` the counter refetch tokens are counted with."""
    needs = SessionNeeds.build(conv, reference) if grounded else None
    return Session(ConversationCounts(conv, counters), needs, recorded_outputs(conv) if priced else {})


def replay_chunk(spec: WorkSpec, dataset: str, items: Sequence[tuple[int, Conversation]]) -> ChunkResult:
    """Replay numbered conversations of one dataset through every entry x window x mode."""
    state = _state(spec)
    rows = Rows()
    units = 0
    for seq, conv in items:
        units += replay_conversation(spec, state, rows, dataset, seq, conv)
        caches.forget()  # the next conversation's messages are all new (the tuner, replaying again, keeps them)
    return ChunkResult(dataset, rows.to_arrow(), len(items), units, rows.errors, ())


def replay_conversation(spec: WorkSpec, state: _State, rows: Rows, dataset: str, seq: int,
                        conv: Conversation, session: Session | None = None) -> int:
    """Append every row of one conversation (ending with its `done` marker); returns its units.
    `session` is the conversation's `Session` when the caller keeps one (built here otherwise)."""
    if session is None:
        # What each recorded action needed is the grader's, computed once per conversation from the
        # full history and never handed to a strategy (which sees only ``messages[:upto]``).
        session = prepare_session(conv, state.counters, state.references[0][1], grounded=spec.grounded,
                                  priced=state.pricer is not None)
    counts, needs, outputs = session.counts, session.needs if spec.grounded else None, session.outputs
    _conversation_rows(spec, state, rows, dataset, seq, conv, counts)
    n_units = 0
    summary_cache: dict = {}
    for entry, strategy in zip(spec.entries, state.strategies, strict=False):
        counter = state.counters[entry.counter]
        for window in spec.windows:
            for mode in spec.modes:
                # Per-turn calls form a session: each is priced against the one before it.
                chain = Chain(state.pricer, outputs) if state.pricer and mode == "per-turn" else None
                graded = GroundedEvaluator(needs) if needs is not None and mode == "per-turn" else None
                facts = FactTracker(conv) if state.quality.fact_recall is not None and mode == "per-turn" else None
                sent = Sent() if mode == "per-turn" else None
                for step in replay_steps(strategy, conv, window, counter, mode):
                    unit = Unit(spec.run_id, dataset, seq, n_units, entry, window, mode, step.turn, step.upto)
                    if sent is not None and step.result is not None:
                        sent.update(step.result.messages)
                    unit_rows(rows, unit, conv, counts, state.references, step.context, step.result, step.error,
                              step.latency_ms, state.quality, summary_cache, facts, sent)
                    if chain is not None and step.upto is not None:
                        for cost in chain.price(n_units, conv, step.upto, step.result):
                            rows.add_typed(unit.key(), cost)
                    if graded is not None and sent is not None and step.upto is not None and step.result is not None:
                        _grounded_row(rows, unit, graded, step.upto, sent, state.references[0][1])
                    rows.seal()
                    n_units += 1
    rows.add("done", {"run_id": spec.run_id, "dataset": dataset, "seq": seq, "units": n_units})
    return n_units


def _grounded_row(rows: Rows, unit: Unit, graded: GroundedEvaluator, upto: int, sent: Sent,
                  reference: TokenCounter) -> None:
    """The unit's grounded measures and the hindsight limit at its tokens (`ctxlab.metrics.limit`);
    a metric bug is noted on its result row, not a lost unit."""
    try:
        limit = limit_kept(graded.needs, upto, sent.messages, reference, whole=sent.now,
                           sent_tokens=sent.tokens(reference))
        measures = graded.measure(upto, sent.messages, changes=sent)._replace(limit_kept=limit)
        rows.add_typed(unit.key(), grounded_row(unit.unit, measures))
    except Exception as exc:
        row = rows.tables["result_rows"][-1]
        problem = f"grounded: {type(exc).__name__}: {exc}"
        row["metric_error"] = f"{row['metric_error']}; {problem}" if row.get("metric_error") else problem


def _conversation_rows(spec: WorkSpec, state: _State, rows: Rows, dataset: str, seq: int,
                       conv: Conversation, counts: ConversationCounts) -> None:
    key = {"run_id": spec.run_id, "dataset": dataset, "seq": seq, "conversation_id": conv.id}
    tokens = {name: counts.history(name) for name, _ in state.references}
    rows.add("conversations", {
        **key, "n_messages": len(conv.messages), "tokens": json.dumps(tokens),
        "meta": json.dumps(conv.meta, ensure_ascii=False, default=str) if conv.meta else None,
        "record": json.dumps(conv.to_record(), ensure_ascii=False, default=str) if spec.store_records else None})
    _log_rows(spec, state, rows, key, conv)
    if not spec.estimators:
        return
    refs = [name for name, _ in state.references]
    per_message = [r for r in message_rows(conv, state.estimators, refs) if r.counter != r.reference]
    whole = [r for r in conversation_rows(conv, state.estimators, refs) if r.counter != r.reference]
    for typed in (*per_message, *whole):
        rows.add_typed(key, typed)


def _log_rows(spec: WorkSpec, state: _State, rows: Rows, key: dict[str, Any], conv: Conversation) -> None:
    """Rows only agent logs have: estimator error against the provider's billed counts (every
    estimator and every reference tokenizer against ``provider:<model>``) and the agent's own
    compactions beside ctxlab's at the same cut, with each counter the run's strategies use."""
    meta = conv.meta or {}
    if spec.estimators and meta.get("provider_calls"):
        counters = [state.counters[n] for n in dict.fromkeys([*state.estimators, *spec.references])]
        for row in provider_rows(conv, counters):
            rows.add_typed(key, row)
    if spec.quality and spec.summaries and meta.get("compactions"):
        for name in dict.fromkeys(e.counter for e in spec.entries):
            for compaction in recorded_compaction_rows(conv, counter=state.counters[name]):
                rows.add_typed(key, compaction)


def init_worker() -> None:
    """Pool worker setup: Ctrl-C is the main process's to handle (it terminates the pool), and a
    worker whose parent died (SIGKILL) exits instead of waiting forever for work."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="ctxlab-parent-watch", daemon=True).start()
