"""What a trigger measures besides the request's own tokens: provider usage an agent log recorded
for the calls before the request, and the time since the model last answered.

- `recorded_total`: Claude Code (and other agents) decide from the usage the provider reported for
  the previous call, not from an estimate of the whole request: the last call's prompt (system
  prompt and tools included), optionally its output, optionally an estimate of every message after
  that prompt (`RECORDED`). The replay hands a strategy the calls before each request
  (`Request.recorded`) only while the context it compresses is still the one the log's calls saw.
- `idle_gap`: the seconds between the newest assistant message and the newest message (the
  request's time), from the messages' timestamps (Claude Code's time-based micro-compaction).

Pure functions over what they are given; `Trigger` names the mode (``recorded``) and the gap
(``idle_minutes``), `BaseStrategy.fires` applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ctxlab.messages import Message

RECORDED = ("none", "prompt", "prompt+output", "prompt+tail")


class Recorded(NamedTuple):
    """One model call an agent log recorded before the request: its prompt held the request's
    first `covers` messages (its reply is ``messages[covers]``), and the provider counted `prompt`
    tokens for it (system prompt and tools included) and `output` for the reply."""

    covers: int
    prompt: int
    output: int = 0


class Measure(NamedTuple):
    """What a trigger measured: the tokens, the signal they come from (``recorded usage`` or
    ``counter <name>``) and, for recorded usage, the anchor call (`Recorded`: its index and the
    prompt the provider reported)."""

    tokens: int
    signal: str
    anchor: Recorded | None = None


RECORDED_SIGNAL = "recorded usage"


def recorded_total(recorded: Sequence[Recorded], counts: Sequence[int], how: str) -> tuple[Recorded, int] | None:
    """The request's tokens anchored on the newest recorded call whose reply it holds.

    Args:
        recorded: the calls before the request (`Request.recorded`).
        counts: the request's per-message tokens under the trigger's counter.
        how: one of `RECORDED`.

    Returns:
        The anchor call and the total: its prompt, plus its output (``prompt+output``) or plus
        ``sum(counts[covers:])`` (``prompt+tail``: the reply and every message after it); None when
        `how` is ``none`` or no call's reply is in the request.
    """
    usable = [r for r in recorded if 0 <= r.covers < len(counts)] if how != "none" else []
    if not usable:
        return None
    last = max(usable, key=lambda r: r.covers)
    extra = last.output if how == "prompt+output" else sum(counts[last.covers:]) if how == "prompt+tail" else 0
    return last, last.prompt + extra


def idle_gap(messages: Sequence[Message]) -> float | None:
    """Seconds from the newest assistant message to the newest message (the time of the request),
    from their timestamps; None when either has none (or there is no assistant message)."""
    now = messages[-1].timestamp if messages else None
    last = next((m for m in reversed(messages) if m.role == "assistant"), None)
    if now is None or last is None or last.timestamp is None:
        return None
    return now - last.timestamp


__all__ = ["RECORDED", "RECORDED_SIGNAL", "Measure", "Recorded", "idle_gap", "recorded_total"]
