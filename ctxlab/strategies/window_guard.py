"""`window_guard`: seed 003, the TypeScript context window guard (OwliaBot).

L1 cuts every tool result over `max_tool_result_chars` to its head and tail around an omission
marker; L2 keeps the request under ``context_window - reserve_tokens`` by dropping the oldest whole
turns (user + assistant + tools), every system message always kept (the seed's ``role ===
"system"`` filter, wherever the message stands); L3 reports both with the seed's own warn lines,
as events.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ctxlab.messages import Message
from ctxlab.models import context_window
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request, register
from ctxlab.strategies.mechanics import call_names, truncate_head_tail, window_by_turns


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
        window = self.context_window_override or (context_window(self.model) if self.model else None)
        return budget if window is None else min(budget, window - self.reserve_tokens)

    def plan(self, request: Request) -> Plan:
        messages, counts, events = self._truncate_tool_results(request)
        budget = self.effective_budget(request.budget)
        available = budget - request.overhead
        if sum(counts) <= available:  # L1 events mean something was cut, else hand back the input
            return Plan(messages if events else request.messages, events)
        keep = keep_system_then_turns(messages, counts, available)
        dropped = [i for i in range(len(messages)) if i not in keep]
        tokens = sum(counts[i] for i in dropped)
        events.append(_warn("context_guard.dropped",
                            f"Context guard: dropped {len(dropped)} old messages (estimated {tokens} tokens)",
                            messages=len(dropped), tokens=tokens, budget=budget))
        kept = [messages[i] for i in sorted(keep)]
        used = sum(counts[i] for i in keep) + request.overhead
        reason = None if used <= budget else (
            f"the system prompt and the newest messages alone take {used} tokens, over the budget of {budget}")
        return Plan(kept, events, reason=reason)

    def _truncate_tool_results(self, request: Request) -> tuple[list[Message], list[int], list[Event]]:
        """L1: head+tail truncation of long tool results, with the counts updated."""
        messages, counts, events = list(request.messages), list(request.counts), []
        names: dict[str, str] | None = None
        for i, m in enumerate(messages):
            if m.role != "tool" or len(text := m.text) <= self.max_tool_result_chars:
                continue
            cut = truncate_head_tail(text, self.max_tool_result_chars, self.truncate_head_chars,
                                     self.truncate_tail_chars)
            if cut == text:
                continue
            names = call_names(messages) if names is None else names
            tool = m.name or names.get(m.tool_call_id or "", "unknown")
            messages[i] = m.with_text(cut)
            counts[i] = request.counter.count_message(messages[i])
            events.append(_warn("context_guard.truncated",
                                f'Context guard: truncated tool result for "{tool}" ({len(text)} → {len(cut)} chars)',
                                id=m.id, tool=tool, original_chars=len(text), truncated_chars=len(cut)))
        return messages, counts, events


def keep_system_then_turns(messages: Sequence[Message], counts: Sequence[int], available: int) -> set[int]:
    """Seed 003's L2: every system message is kept and counted first (``truncated.filter(m => m.role
    === "system")``, not only the leading prompt); the other messages keep their newest whole turns.

    The seed returns ``[...systemMsgs, ...kept]``, moving a mid-conversation system message to the
    front; ctxlab keeps every message in its place (order is an invariant).
    """
    system = [i for i, m in enumerate(messages) if m.role == "system"]
    chat = [i for i, m in enumerate(messages) if m.role != "system"]
    room = available - sum(counts[i] for i in system)
    kept = window_by_turns([messages[i] for i in chat], [counts[i] for i in chat], room)
    return set(system) | {chat[j] for j in kept}


def _warn(name: str, line: str, **payload: object) -> Event:
    return Event(name, {"level": "warn", "message": line, **payload})
