"""What a policy did at one call, for the people running it: one log line and a JSON-friendly record.

Both integrations log every call to the ``ctxlab.integrations`` logger: at INFO when the policy
dropped, cut or summarized something, at DEBUG when it sent the history as it was. The record
(`record`) is what the LangChain middleware also sends as a LangChain custom event.
"""

from __future__ import annotations

import logging
from typing import Any

from ctxlab.strategies import CompressionResult

logger = logging.getLogger("ctxlab.integrations")
EVENT = "ctxlab_context"  # the LangChain custom event's name


def record(result: CompressionResult, call: int) -> dict[str, Any]:
    """The call's outcome: tokens before and after, what went (dropped, cut, summarized) and the
    strategy's own events (`CompressionResult.events`, in its source system's vocabulary)."""
    given = set(result.input_ids)
    written = [m for m in result.messages if m.mark == "summary" and m.id not in given]
    return {
        "call": call, "policy": result.spec.name, "window": result.budget, "counter": result.counter,
        "messages_before": len(result.input_ids), "messages_after": len(result.messages),
        "tokens_before": result.tokens_before, "tokens_after": result.tokens_after, "fits": result.fits,
        "reason": result.reason, "dropped_ids": list(result.dropped_ids), "truncated_ids": list(result.truncated_ids),
        "summarized_ids": [i for m in written for i in m.source_ids],
        "events": [{"name": e.name, "payload": dict(e.payload)} for e in result.events],
    }


def describe(done: dict[str, Any]) -> str:
    """`record`'s content in one line."""
    line = (f"call {done['call']}: {done['policy']} sent {done['messages_after']} of the {done['messages_before']} "
            f"messages it was handed, {done['tokens_before']:,} -> {done['tokens_after']:,} tokens ({done['counter']}, "
            f"window {done['window']:,}); dropped {len(done['dropped_ids'])}, cut {len(done['truncated_ids'])}, "
            f"summarized {len(done['summarized_ids'])}")
    if done["events"]:
        line += "; events " + ", ".join(e["name"] for e in done["events"])
    return line if done["fits"] else f"{line}; does not fit: {done['reason']}"


def log(result: CompressionResult, call: int) -> dict[str, Any]:
    """Log the call (INFO when the policy changed what is sent) and return its record."""
    done = record(result, call)
    changed = done["dropped_ids"] or done["truncated_ids"] or done["summarized_ids"]
    logger.log(logging.INFO if changed else logging.DEBUG, describe(done))
    return done
