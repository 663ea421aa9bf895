"""`observation_masking`: replace old tool outputs with a short placeholder.

From JetBrains Research's "The Complexity Trap" (masking observations older than the last M = 10
turns halves an agent's cost at an equal solve rate on SWE-bench Verified), OpenHands'
ObservationMaskingCondenser and LangChain's ClearToolUsesEdit. A turn is one model call, as in
those agent trajectories: an assistant message and the tool results answering it. A masked
output keeps its message (same id, marked truncated), tool name and call id, so the exchange stays
valid and the model still sees what it did. If the masked conversation is still over the budget,
the oldest whole turns go, as in `window_guard`.

On the mechanics: a turn-counted mask of the middle (`mechanics.mask.mask_old_turns`, masking
always, whatever the budget), then, measured on the masked counts, the newest whole turns that fit
(`mechanics.fit.newest_turns`), the rest dropped. This module maps its parameters onto those
mechanics and names its events.
"""

from __future__ import annotations

from dataclasses import dataclass

from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request
from ctxlab.strategies.mechanics import fit, mask
from ctxlab.strategies.registry import register

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
        masked = mask.mask_old_turns(request.messages, self.attention_window, PLACEHOLDER, self.min_chars)
        messages, counts = fit.rewrite(request.messages, request.counts, masked, request.counter)
        events = []
        if masked:
            saved = sum(request.counts[i] - counts[i] for i in masked)
            events.append(Event("observation_masking.masked", {"messages": len(masked), "tokens_saved": saved}))
        available = request.budget - request.overhead
        if not self.fallback_window or sum(counts) <= available:
            return Plan(messages if masked else request.messages, events)
        keep = fit.newest_turns(messages, counts, available)
        gone, tokens = fit.dropped(keep, counts)
        events.append(Event("observation_masking.dropped", {"messages": len(gone), "tokens": tokens}))
        return Plan([messages[i] for i in sorted(keep)], events)


def is_placeholder(text: str) -> bool:
    """Whether `text` is already a masking placeholder (masking twice keeps the first count)."""
    return mask.is_placeholder(text, PLACEHOLDER)
