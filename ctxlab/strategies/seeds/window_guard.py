"""`window_guard`: seed 003, the TypeScript context window guard (OwliaBot).

L1 cuts every tool result over `max_tool_result_chars` to its head and tail around an omission
marker; L2 keeps the request under ``context_window - reserve_tokens`` by dropping the oldest whole
turns (user + assistant + tools), every system message always kept (the seed's ``role ===
"system"`` filter, wherever the message stands); L3 reports both with the seed's own warn lines,
as events.

On the mechanics: a head+tail truncation pre-pass on tool results (`mechanics.truncate`), the
budget ``min(budget, window - reserve)`` (`trigger.reserved_budget`), then, measured on the
truncated counts, the newest whole turns that fit with every system message kept
(`mechanics.fit.newest_turns`), the rest dropped. This module maps the seed's configuration onto
those mechanics and writes its warn lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from ctxlab.messages import Message
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request
from ctxlab.strategies.mechanics import fit, truncate
from ctxlab.strategies.mechanics.context import call_names
from ctxlab.strategies.registry import register
from ctxlab.strategies.trigger import reserved_budget


@register("window_guard")
@dataclass(frozen=True)
class WindowGuard(BaseStrategy):
    """Seed 003's three layers with its defaults.

    Attributes:
        max_tool_result_chars: L1 threshold: longer tool results are cut.
        truncate_head_chars: characters kept from the start of a cut tool result.
        truncate_tail_chars: characters kept from its end.
        reserve_tokens: tokens left for the reply, subtracted from the context window.
        model: a model name whose context window litellm knows (``max_input_tokens``).
        context_window_override: a context window to use instead of the model's.
    """

    max_tool_result_chars: int = 50_000
    truncate_head_chars: int = 2_000
    truncate_tail_chars: int = 2_000
    reserve_tokens: int = 8192
    model: str | None = None
    context_window_override: int | None = None

    seed_counter: ClassVar[str] = "chars3"
    source_names: ClassVar[tuple[tuple[str, str], ...]] = (
        ("max_tool_result_chars", "`maxToolResultChars`"), ("truncate_head_chars", "`truncateHeadChars`"),
        ("truncate_tail_chars", "`truncateTailChars`"), ("reserve_tokens", "`reserveTokens`"),
        ("model", "the model whose `contextWindow` is used (unknown model: an error)"),
        ("context_window_override", "`contextWindowOverride`"))

    def effective_budget(self, budget: int) -> int:
        """``min(budget, window - reserve_tokens)`` when a window is configured, else `budget`."""
        return reserved_budget(budget, self.reserve_tokens, self.context_window_override or 0, self.model or "")

    def plan(self, request: Request) -> Plan:
        cut = truncate.head_tail(self.max_tool_result_chars, self.truncate_head_chars, self.truncate_tail_chars)
        cuts = truncate.cut_long(request.messages, truncate.tool_results(request.messages),
                                 self.max_tool_result_chars, cut)
        messages, counts = fit.rewrite(request.messages, request.counts, cuts, request.counter)
        events = _truncated(request.messages, cuts)
        budget = self.effective_budget(request.budget)
        available = budget - request.overhead
        if sum(counts) <= available:  # L1 events mean something was cut, else hand back the input
            return Plan(messages if events else request.messages, events)
        keep = fit.newest_turns(messages, counts, available, every_system=True)
        gone, tokens = fit.dropped(keep, counts)
        events.append(_warn("context_guard.dropped",
                            f"Context guard: dropped {len(gone)} old messages (estimated {tokens} tokens)",
                            messages=len(gone), tokens=tokens, budget=budget))
        kept = [messages[i] for i in sorted(keep)]
        used = sum(counts[i] for i in keep) + request.overhead
        reason = None if used <= budget else (
            f"the system prompt and the newest messages alone take {used} tokens, over the budget of {budget}")
        return Plan(kept, events, reason=reason)


def _truncated(messages: Sequence[Message], cuts: Mapping[int, Message]) -> list[Event]:
    """L3: the seed's warn line for each tool result L1 cut."""
    names = call_names(messages) if cuts else {}
    events = []
    for i, short in cuts.items():
        m = messages[i]
        tool = m.name or names.get(m.tool_call_id or "", "unknown")
        original, new = len(m.text), len(short.text)
        events.append(_warn("context_guard.truncated",
                            f'Context guard: truncated tool result for "{tool}" ({original} → {new} chars)',
                            id=m.id, tool=tool, original_chars=original, truncated_chars=new))
    return events


def _warn(name: str, line: str, **payload: object) -> Event:
    return Event(name, {"level": "warn", "message": line, **payload})
