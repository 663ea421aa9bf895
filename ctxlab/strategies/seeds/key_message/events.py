"""Seed 004's report of a compression (private to `key_message`): its CompressionResult metadata as an
event, and the tokens nothing can drop."""

from __future__ import annotations

from collections.abc import Sequence

from ctxlab.messages import Message
from ctxlab.strategies.base import Event, Request
from ctxlab.strategies.mechanics import context

STRATEGY_NAME = "KeyMessageExtraction"  # the seed's `strategyUsed`


def fixed_cost(request: Request, end: int) -> int:
    """Tokens of what is never dropped: the pinned messages, the current loop (from `end`), overhead."""
    keep = context.pinned(request.messages) | set(range(end, len(request.messages)))
    return sum(request.counts[i] for i in keep) + request.overhead


def compression_event(request: Request, kept: Sequence[Message], after: int, stage: str | None,
           reason: str | None = None) -> Event:
    """The seed's CompressionResult metadata (camelCase keys as in the seed), plus the fallback stage
    (None when under the trigger, so nothing was compressed) and why the target was missed, if it was."""
    kept_ids = {m.id for m in kept}
    dropped = [m.id for m in request.messages if m.id not in kept_ids]
    compressed = stage is not None
    return Event("compression", {
        "compressed": compressed, "inputCount": len(request.messages), "outputCount": len(kept),
        "droppedCount": len(request.messages) - len(kept), "inputTokens": request.total, "outputTokens": after,
        "strategyUsed": STRATEGY_NAME if compressed else "none", "droppedMessageIds": dropped,
        "truncatedMessageIds": [m.id for m in kept if m.mark == "truncated"],
        "usagePercent": request.total / request.budget, "fallback": stage or "none", "reason": reason})


__all__ = ["STRATEGY_NAME", "compression_event", "fixed_cost"]
