"""The plan of a done compaction and its events, in seed 001's vocabulary (private to `compaction`):
one ``summary_call`` per LLM call (the usage the replay sums) and ``context_compacted`` with the
seed's CompactResult figures."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ctxlab.strategies.base import SUMMARY_CALL, Event, Plan
from ctxlab.strategies.mechanics import summary
from ctxlab.strategies.mechanics.context import dropped_ids, real_user
from ctxlab.strategies.mechanics.voices import VOICES
from ctxlab.strategies.policy.attempts import Outcome
from ctxlab.strategies.policy.job import Job


def done(job: Job, outcome: Outcome, confirmation: dict[str, Any] | None, threshold: int | None,
         summarizer: str) -> Plan:
    """The plan of `outcome`, with its events (`threshold`: the trigger's tokens at the limit)."""
    request = job.request
    after = request.cost(outcome.messages) + request.overhead
    text = summary.carried(outcome.messages, VOICES["ctxlab"])
    compacted = {
        "original_tokens": request.total, "new_tokens": after,
        "compacted_count": sum(1 for i in outcome.summarized if real_user(job.messages[i])),
        "compacted_messages": len(outcome.summarized),
        "saved_ratio": 1 - after / request.total if request.total else 0.0,
        "summary": text or "", "attempts": outcome.attempts, "fallback": outcome.fallback,
        "split_turn": outcome.split, "error": outcome.error, "summarizer": summarizer, "trigger_tokens": threshold,
        "limit": job.window, "confirmation": confirmation,
        **_usage([e.payload for e in outcome.events if e.name == SUMMARY_CALL])}
    reason = None if after <= request.budget else (
        f"the system prompt and newest user message alone take {after} tokens, over the budget")
    return Plan(outcome.messages, events=[*outcome.events, Event("context_compacted", compacted)],
                summary=text, reason=reason, dropped_ids=dropped_ids(request.messages, outcome.messages))


def _usage(calls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summarizer's LLM usage over the ``summary_call`` payloads (cost None when a call has no price)."""
    costs = [c["cost_usd"] for c in calls]
    return {"summarizer_input_tokens": sum(c["input_tokens"] or 0 for c in calls),
            "summarizer_output_tokens": sum(c["output_tokens"] or 0 for c in calls),
            "summarizer_cost_usd": None if any(c is None for c in costs) else float(sum(costs)),
            "summarizer_latency_ms": sum(c["latency_ms"] or 0.0 for c in calls)}


__all__ = ["done"]
