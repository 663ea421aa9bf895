"""`key_message`: seed 004's Electron key-message extraction (KeyMessageExtractionStrategy).

Over `trigger_threshold` usage the history is cut to `target_usage` of the budget: messages are
scored (role tiers, +1000 for the last `min_recent_messages`, position and explainable weighting),
tool groups are kept or dropped whole, and the best are taken greedily and returned in their
original order. When the must-keep set alone is over the target the seed's fallbacks run in turn:
tool-result previews, text trims, then only the last K rounds.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from ctxlab.messages import Message, as_messages
from ctxlab.strategies import mechanics
from ctxlab.strategies._key_message_fallback import last_rounds_start, tool_preview, trim_text
from ctxlab.strategies._key_message_scoring import classify_units, gather_units, greedy, score_messages, unit_costs
from ctxlab.strategies.base import BaseStrategy, CompressionResult, Event, Plan, Request, register
from ctxlab.strategies.mechanics import Span, Usage
from ctxlab.tokens import TokenCounter

STRATEGY_NAME = "KeyMessageExtraction"  # the seed's `strategyUsed`
STAGES = ("none", "tool_preview", "text_trim", "last_rounds", "newest")


class Extraction(NamedTuple):
    """What one compression kept: messages (trimmed where a fallback trimmed them) and the stage."""

    messages: tuple[Message, ...]
    stage: str


class HistoricalResult(NamedTuple):
    """Seed's `compressHistoricalMessages` result, plus ctxlab's result for the historical part."""

    messages: tuple[Message, ...]
    new_loop_start: int
    result: CompressionResult


@register("key_message")
@dataclass(frozen=True)
class KeyMessage(BaseStrategy):
    """Seed 004: trigger at 80% usage, cut to 50% by message priority, tool groups atomic.

    Attributes:
        trigger_threshold: compress when usage (tokens / budget) is above this.
        target_usage: compress to ``floor(budget * target_usage)`` tokens.
        min_recent_messages: the last N messages get +1000 and form the must-keep set.
        preview_chars: characters of head + tail lines a tool-result preview keeps (fallback 1).
        max_text_chars: user/assistant texts longer than this are trimmed (fallback 2).
        fallback_rounds: K of the last-K-rounds fallback (fallback 3).
        in_loop: only messages before the current tool loop are compressible; the loop stays whole.
    """

    trigger_threshold: float = 0.8
    target_usage: float = 0.5
    min_recent_messages: int = 10
    preview_chars: int = 400
    max_text_chars: int = 800
    fallback_rounds: int = 4
    in_loop: bool = False

    seed_counter: ClassVar[str] = "ascii_cjk"

    def plan(self, request: Request) -> Plan:
        usage = Usage(request.total, request.budget)
        if usage.percent <= self.trigger_threshold:
            return Plan(request.messages, events=(_event(request, request.messages, request.total, None),))
        end = loop_start(request.messages) if self.in_loop else len(request.messages)
        target = min(math.floor(request.budget * self.target_usage), request.budget)
        kept = self.extract(request, end, target - request.overhead)
        after = request.cost(kept.messages) + request.overhead
        pinned_cost = sum(request.counts[i] for i in mechanics.pinned(request.messages)) + request.overhead
        reason = (f"the system prompt and newest user message alone need {pinned_cost} tokens, over the "
                  f"budget of {request.budget}") if pinned_cost > request.budget else None
        return Plan(kept.messages, events=(_event(request, kept.messages, after, kept.stage),), reason=reason)

    def extract(self, request: Request, end: int, available: int) -> Extraction:
        """Select within `available` message tokens, running the fallbacks while the must-keep set is over."""
        messages, counts = list(request.messages), list(request.counts)
        units = mechanics.tool_groups(messages)
        roles = classify_units(messages, units, end, self.min_recent_messages)
        scores = score_messages(messages[:end], self.min_recent_messages)
        priority = [max(scores[i] for i in range(u.start, u.stop)) if r == "optional" else 0.0
                    for u, r in zip(units, roles, strict=False)]
        editable = range(mechanics.system_prefix(messages), end)
        protected = mechanics.pinned(messages)
        for stage in STAGES[:3]:
            if stage == "tool_preview":
                self._previews(messages, counts, editable, protected, request.counter)
            elif stage == "text_trim":
                self._trims(messages, counts, editable, protected, request.counter)
            chosen = greedy(roles, priority, unit_costs(units, counts), available)
            if chosen is not None:
                return Extraction(gather_units(messages, units, chosen), stage)
        return self._last_resort(messages, counts, units, roles, available)

    def _previews(self, messages: list[Message], counts: list[int], editable: range, protected: set[int],
                  counter: TokenCounter) -> None:
        names = mechanics.call_names(messages)
        for i in editable:
            m = messages[i]
            if m.role == "tool" and i not in protected:
                preview = tool_preview(m.text, names.get(m.tool_call_id or "", m.name or ""), self.preview_chars)
                _replace(messages, counts, i, preview, counter)

    def _trims(self, messages: list[Message], counts: list[int], editable: range, protected: set[int],
               counter: TokenCounter) -> None:
        for i in editable:
            m = messages[i]
            if m.role in ("user", "assistant") and i not in protected:
                _replace(messages, counts, i, trim_text(m.text, self.max_text_chars), counter)

    def _last_resort(self, messages: list[Message], counts: list[int], units: list[Span], roles: list[str],
                     available: int) -> Extraction:
        """Fallback 3 (the last K rounds), then ctxlab's guarantee: the newest units that fit."""
        costs = unit_costs(units, counts)
        start = last_rounds_start(messages, mechanics.system_prefix(messages), self.fallback_rounds)
        rounds = {k for k, (u, r) in enumerate(zip(units, roles, strict=False))
                  if r == "pinned" or (r != "excluded" and u.start >= start)}
        if sum(costs[k] for k in rounds) <= available:
            return Extraction(gather_units(messages, units, rounds), "last_rounds")
        pinned = [k for k, r in enumerate(roles) if r == "pinned"]
        rest = [k for k, r in enumerate(roles) if r not in ("pinned", "excluded")]
        room = available - sum(costs[k] for k in pinned)
        first = mechanics.keep_newest([costs[k] for k in rest], room) if room >= 0 else len(rest)
        return Extraction(gather_units(messages, units, {*pinned, *rest[first:]}), "newest")


def loop_start(messages: Sequence[Message]) -> int:
    """Start of the current tool loop: the trailing run of tool-call messages and their results after
    the newest user message (``len(messages)`` when the conversation is not inside a loop)."""
    user = mechanics.newest_user(messages)
    floor = user + 1 if user is not None else mechanics.system_prefix(messages)
    index = len(messages)
    while index > floor and (messages[index - 1].role == "tool" or messages[index - 1].tool_calls):
        index -= 1
    return index


def compress_historical(messages: Iterable[Message | Mapping[str, Any]], loop_start_index: int, budget: int, *,
                        counter: str | TokenCounter = "ascii_cjk",
                        strategy: KeyMessage | None = None) -> HistoricalResult:
    """Seed's `compressHistoricalMessages`: compress ``messages[:loop_start]`` if needed, keep the loop.

    As in the seed, the historical part alone is checked against the trigger and cut to the target;
    the current loop is appended unchanged, so the whole may exceed the target.
    """
    msgs = as_messages(messages)
    strategy = dataclasses.replace(strategy or KeyMessage(), in_loop=False)
    result = strategy.compress(msgs[:loop_start_index], budget, counter=counter)
    return HistoricalResult((*result.messages, *msgs[loop_start_index:]), len(result.messages), result)


def _replace(messages: list[Message], counts: list[int], index: int, text: str | None,
             counter: TokenCounter) -> None:
    if text is not None:
        messages[index] = messages[index].with_text(text)
        counts[index] = counter.count_message(messages[index])


def _event(request: Request, kept: Sequence[Message], after: int, stage: str | None) -> Event:
    """The seed's CompressionResult metadata (camelCase keys as in the seed), plus the fallback stage
    (None when under the trigger, so nothing was compressed)."""
    kept_ids = {m.id for m in kept}
    dropped = [m.id for m in request.messages if m.id not in kept_ids]
    compressed = stage is not None
    return Event("compression", {
        "compressed": compressed, "inputCount": len(request.messages), "outputCount": len(kept),
        "droppedCount": len(request.messages) - len(kept), "inputTokens": request.total, "outputTokens": after,
        "strategyUsed": STRATEGY_NAME if compressed else "none", "droppedMessageIds": dropped,
        "truncatedMessageIds": [m.id for m in kept if m.mark == "truncated"],
        "usagePercent": request.total / request.budget, "fallback": stage or "none"})
