"""`key_message`: seed 004's Electron key-message extraction (KeyMessageExtractionStrategy).

Over `trigger_threshold` usage the history is cut to `target_usage` of the budget: messages are
scored (role tiers, +1000 for the last `min_recent_messages`, position and explainable weighting),
tool groups are kept or dropped whole, and the best are taken greedily and returned in their
original order. When the must-keep set alone is over the target the seed's fallbacks run in turn:
tool-result previews, text trims, then only the last K rounds. If even those are over, a last pass
runs the seed's greedy step with only the pinned messages (and, in loop mode, the current loop) fixed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from ctxlab.messages import Message, as_messages
from ctxlab.strategies.base import BaseStrategy, CompressionResult, Plan, Request
from ctxlab.strategies.mechanics import context
from ctxlab.strategies.mechanics.context import Span
from ctxlab.strategies.registry import register
from ctxlab.strategies.seeds.key_message.events import compression_event, fixed_cost
from ctxlab.strategies.seeds.key_message.fallback import last_rounds_start, loop_start, tool_preview, trim_text
from ctxlab.strategies.seeds.key_message.scoring import classify_units, gather_units, greedy, score_messages, unit_costs
from ctxlab.strategies.trigger import Trigger
from ctxlab.tokens import TokenCounter

STAGES = ("none", "tool_preview", "text_trim", "last_rounds", "greedy")


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
    source_names: ClassVar[tuple[tuple[str, str], ...]] = (
        ("trigger_threshold", "`triggerThreshold`"), ("target_usage", "`targetUsage`"),
        ("min_recent_messages", "`minRecentMessages`"),
        ("preview_chars", '"前后 N 行/字符" of the tool-result preview (N not given; ctxlab\'s choice)'),
        ("max_text_chars", '"超长" user/assistant text (not given; ctxlab\'s choice)'), ("fallback_rounds", "K = 4"),
        ("in_loop", "compress only before the current tool loop (`compressHistoricalMessages`)"))

    def when(self) -> Trigger:
        """The seed's ``usagePercent > triggerThreshold``: over that share of the budget."""
        return Trigger.at_share(self.trigger_threshold)

    def idle(self, request: Request) -> Plan:
        return Plan(request.messages, events=(compression_event(request, request.messages, request.total, None),))

    def plan(self, request: Request) -> Plan:
        end = loop_start(request.messages) if self.in_loop else len(request.messages)
        target = min(math.floor(request.budget * self.target_usage), request.budget)
        kept = self.extract(request, end, target - request.overhead)
        after = request.cost(kept.messages) + request.overhead
        fixed = fixed_cost(request, end)
        what = "the system prompt, newest user message and current tool loop" if end < len(request.messages) \
            else "the system prompt and newest user message"
        over_target = f"{what} alone need {fixed} tokens, over the target of {target}" if fixed > target else None
        reason = f"{what} alone need {fixed} tokens, over the budget of {request.budget}" \
            if fixed > request.budget else None
        event = compression_event(request, kept.messages, after, kept.stage, over_target)
        return Plan(kept.messages, events=(event,), reason=reason)

    def extract(self, request: Request, end: int, available: int) -> Extraction:
        """Select within `available` message tokens, running the fallbacks while the must-keep set is over."""
        messages, counts = list(request.messages), list(request.counts)
        units = context.tool_groups(messages)
        roles = classify_units(messages, units, end, self.min_recent_messages)
        scores = score_messages(messages[:end], self.min_recent_messages)
        # Units from `end` on are the current loop: always kept, so never ranked.
        ranks = [max((scores[i] for i in range(u.start, min(u.stop, end))), default=0.0) for u in units]
        priority = [rank if r == "optional" else 0.0 for rank, r in zip(ranks, roles, strict=False)]
        editable = range(context.system_prefix(messages), end)
        protected = context.pinned(messages)
        for stage in STAGES[:3]:
            if stage == "tool_preview":
                self._previews(messages, counts, editable, protected, request.counter)
            elif stage == "text_trim":
                self._trims(messages, counts, editable, protected, request.counter)
            chosen = greedy(roles, priority, unit_costs(units, counts), available)
            if chosen is not None:
                return Extraction(gather_units(messages, units, chosen), stage)
        return self._last_resort(messages, counts, units, roles, ranks, end, available)

    def _previews(self, messages: list[Message], counts: list[int], editable: range, protected: set[int],
                  counter: TokenCounter) -> None:
        names = context.call_names(messages)
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
                     ranks: list[float], end: int, available: int) -> Extraction:
        """Fallback 3 (the last K rounds); if still over, the seed's greedy step once more with only the
        pinned messages and the current loop fixed: every other unit by priority, each taken if it
        fits and skipped if not (the seed's greedy skips, it does not stop)."""
        costs = unit_costs(units, counts)
        start = last_rounds_start(messages, context.system_prefix(messages), self.fallback_rounds)
        rounds = {k for k, (u, r) in enumerate(zip(units, roles, strict=False))
                  if r == "pinned" or (r != "excluded" and u.start >= start)}
        if sum(costs[k] for k in rounds) <= available:
            return Extraction(gather_units(messages, units, rounds), "last_rounds")
        relaxed = ["pinned" if r == "pinned" or u.start >= end else "excluded" if r == "excluded" else "optional"
                   for u, r in zip(units, roles, strict=False)]
        chosen = greedy(relaxed, ranks, costs, available)
        if chosen is None:  # the pinned messages and the loop alone are over: they are kept, never cut
            chosen = {k for k, r in enumerate(relaxed) if r == "pinned"}
        return Extraction(gather_units(messages, units, chosen), "greedy")


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


__all__ = ["STAGES", "Extraction", "HistoricalResult", "KeyMessage", "compress_historical", "loop_start"]
