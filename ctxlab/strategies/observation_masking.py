"""`observation_masking`: replace old tool outputs with a short placeholder.

From JetBrains Research's "The Complexity Trap" (masking observations older than the last M = 10
turns halves an agent's cost at an equal solve rate on SWE-bench Verified), OpenHands'
ObservationMaskingCondenser and LangChain's ClearToolUsesEdit. A turn is one model call, as in
those agent trajectories: an assistant message and the tool results answering it. A masked
output keeps its message (same id, marked truncated), tool name and call id, so the exchange stays
valid and the model still sees what it did. If the masked conversation is still over the budget,
the oldest whole turns go, as in `window_guard`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxlab.messages import Message
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request, register
from ctxlab.strategies.mechanics import call_names, window_by_turns

PLACEHOLDER = "[output of {tool} ({call_id}) omitted: {chars:,} chars]"


@register("observation_masking")
@dataclass(frozen=True)
class ObservationMasking(BaseStrategy):
    """Mask tool outputs older than the last `attention_window` turns, then window if needed.

    Attributes:
        attention_window: how many of the newest turns (assistant messages) keep their outputs.
        min_chars: only outputs longer than this are masked.
        fallback_window: drop the oldest whole turns when the masked conversation is still over
            the budget (off: masking only, e.g. as a pipeline step before another window).
    """

    attention_window: int = 10
    min_chars: int = 0
    fallback_window: bool = True

    def plan(self, request: Request) -> Plan:
        messages, counts = list(request.messages), list(request.counts)
        masked = self._mask(messages, counts, request)
        events = []
        if masked:
            saved = sum(request.counts[i] - counts[i] for i in masked)
            events.append(Event("observation_masking.masked", {"messages": len(masked), "tokens_saved": saved}))
        available = request.budget - request.overhead
        if not self.fallback_window or sum(counts) <= available:
            return Plan(messages if masked else request.messages, events)
        keep = window_by_turns(messages, counts, available)
        dropped = [i for i in range(len(messages)) if i not in keep]
        events.append(Event("observation_masking.dropped", {
            "messages": len(dropped), "tokens": sum(counts[i] for i in dropped)}))
        return Plan([messages[i] for i in sorted(keep)], events)

    def _mask(self, messages: list[Message], counts: list[int], request: Request) -> list[int]:
        """Mask, in place, the outputs before the attention window; returns the masked indices."""
        masked: list[int] = []
        names: dict[str, str] | None = None
        for i in range(_window_start(messages, self.attention_window)):
            m = messages[i]
            if m.role != "tool" or len(original := m.text) <= self.min_chars or is_placeholder(original):
                continue
            names = call_names(messages) if names is None else names
            tool = m.name or names.get(m.tool_call_id or "", "tool")
            text = PLACEHOLDER.format(tool=tool, call_id=m.tool_call_id, chars=len(original))
            if len(text) < len(original):  # never swap a short output for a longer placeholder
                messages[i] = m.with_text(text)
                counts[i] = request.counter.count_message(messages[i])
                masked.append(i)
        return masked


def is_placeholder(text: str) -> bool:
    """Whether `text` is already a masking placeholder (masking twice keeps the first count)."""
    return text.startswith("[output of ") and text.endswith(" chars]")


def _window_start(messages: list[Message], window: int) -> int:
    """Index of the oldest turn inside the attention window (0 when there are fewer turns)."""
    if window <= 0:
        return len(messages)
    seen = 0
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant":
            seen += 1
            if seen == window:
                return i
    return 0
