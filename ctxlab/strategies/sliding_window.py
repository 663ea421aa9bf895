"""`sliding_window`: seed 000, the Go agent's SimpleCompressor (Milestone 2 context subsystem).

Two steps, as the seed's code comment orders them: cut any message longer than
`max_chars_per_message` characters, then walk from the newest message back, accumulating token
estimates, and drop everything older than the first message that does not fit. The seed's
Assembler adds the system prompt and the user message around the compressed history, so here they
are pinned; tool exchanges move as one unit. The seed records a `context.compressed` event, whose
counts are the history's alone (what the seed's Compressor sees).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ctxlab.messages import Message
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request, register
from ctxlab.strategies.mechanics import pinned, tool_groups


@register("sliding_window")
@dataclass(frozen=True)
class SlidingWindow(BaseStrategy):
    """Seed 000's SimpleCompressor.

    Attributes:
        max_chars_per_message: messages longer than this (in characters, the seed's runes) are cut
            to their first `max_chars_per_message` characters (`MAX_CHARS_PER_MESSAGE`, 4000).
        max_chars: the seed's ``TokenBudget.MaxChars`` ("fallback when no token estimate"): when
            above 0, the kept history's characters stay within it as well as within the token
            budget (ctxlab always has a token estimate, so the fallback bounds alongside it).
    """

    max_chars_per_message: int = 4000
    max_chars: int = 0

    seed_counter: ClassVar[str] = "chars4"
    source_names: ClassVar[tuple[tuple[str, str], ...]] = (
        ("max_chars_per_message", "`MAX_CHARS_PER_MESSAGE`"),
        ("max_chars", '`TokenBudget.MaxChars`, "fallback when no token estimate"'))

    def plan(self, request: Request) -> Plan:
        keep = pinned(request.messages)
        messages, counts = self._cut_long_messages(request, keep)
        room = request.budget - request.overhead - sum(counts[i] for i in keep)
        reason = None
        if room < 0:
            reason = (f"the system prompt and newest user message alone take {request.budget - room} "
                      f"tokens, over the budget of {request.budget}")
        history = _walk_back(messages, counts, keep, room, self.max_chars)
        # The seed's Compressor sees the history alone (the Assembler adds the pinned messages after),
        # so its event counts history messages and tokens against the history's budget.
        payload = {"original_count": len(messages) - len(keep), "compressed_count": len(history),
                   "estimated_tokens": sum(counts[i] for i in history), "budget_tokens": max(room, 0)}
        if self.max_chars > 0:
            payload |= {"estimated_chars": sum(_runes(messages[i]) for i in history), "budget_chars": self.max_chars}
        keep |= history
        # Nothing cut and nothing dropped: hand back the input itself.
        kept = request.messages if len(keep) == len(messages) and counts == request.counts else [
            messages[i] for i in sorted(keep)]
        return Plan(kept, [Event("context.compressed", payload)], reason=reason)

    def _cut_long_messages(self, request: Request, keep: set[int]) -> tuple[list[Message], list[int]]:
        """Step 1: cut messages over the char cap, with the counts updated."""
        messages, counts = list(request.messages), list(request.counts)
        cap = self.max_chars_per_message
        for i, m in enumerate(messages):
            # Pinned messages are not history in the seed: the Assembler adds them uncut.
            if i not in keep and len(text := m.text) > cap:
                messages[i] = m.with_text(text[:cap])
                counts[i] = request.counter.count_message(messages[i])
        return messages, counts


def _walk_back(messages: list[Message], counts: list[int], pinned_at: set[int], room: int,
               max_chars: int = 0) -> set[int]:
    """Newest-first over the unpinned tool groups; stop at the first that does not fit the token room
    (or, with `max_chars`, the character budget)."""
    keep: set[int] = set()
    chars = max_chars if max_chars > 0 else None
    for start, stop in reversed(tool_groups(messages)):
        if start in pinned_at:
            continue
        cost = sum(counts[start:stop])
        size = sum(_runes(messages[i]) for i in range(start, stop)) if chars is not None else 0
        if cost > room or (chars is not None and size > chars):
            break
        room -= cost
        chars = chars - size if chars is not None else None
        keep.update(range(start, stop))
    return keep


def _runes(message: Message) -> int:
    """Characters of a message as the seed counts them (its content's runes; tool calls' name and
    arguments too, as `chars4` counts them)."""
    return sum(len(p) for p in message.parts) + sum(len(c.name) + len(c.arguments) for c in message.tool_calls)
