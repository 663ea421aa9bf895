"""`sliding_window`: seed 000, the Go agent's SimpleCompressor (Milestone 2 context subsystem).

Two steps, as the seed's code comment orders them: cut any message longer than
`max_chars_per_message` characters, then walk from the newest message back, accumulating token
estimates, and drop everything older than the first message that does not fit. The seed's
Assembler adds the system prompt and the user message around the compressed history, so here they
are pinned; tool exchanges move as one unit. The seed records a `context.compressed` event, whose
counts are the history's alone (what the seed's Compressor sees).

On the mechanics: a truncation pre-pass keeping the first characters of every unpinned message
(`mechanics.truncate`), then the newest tool groups that fit the tokens (and characters) left, up to
the first that does not (`mechanics.fit.newest_until_miss`), the rest dropped. This module maps the
seed's configuration onto those mechanics and writes its event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ctxlab.messages import Message
from ctxlab.strategies.base import BaseStrategy, Event, Plan, Request
from ctxlab.strategies.mechanics import fit, truncate
from ctxlab.strategies.mechanics.context import pinned, tool_groups
from ctxlab.strategies.registry import register


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
        # Pinned messages are not history in the seed: the Assembler adds them uncut.
        history = [i for i in range(len(request.messages)) if i not in keep]
        cap = self.max_chars_per_message
        cuts = truncate.cut_long(request.messages, history, cap, truncate.first_chars(cap))
        messages, counts = fit.rewrite(request.messages, request.counts, cuts, request.counter)
        room = request.budget - request.overhead - sum(counts[i] for i in keep)
        reason = None
        if room < 0:
            reason = (f"the system prompt and newest user message alone take {request.budget - room} "
                      f"tokens, over the budget of {request.budget}")
        limits: list[fit.Limit] = [(counts, room)]
        if self.max_chars > 0:
            limits.append(([_runes(m) for m in messages], self.max_chars))
        kept_history = fit.newest_until_miss(tool_groups(messages), limits, skip=keep)
        event = self._compressed(messages, counts, len(messages) - len(keep), kept_history, room)
        keep |= kept_history
        # Nothing cut and nothing dropped: hand back the input itself.
        kept = request.messages if len(keep) == len(messages) and counts == request.counts else [
            messages[i] for i in sorted(keep)]
        return Plan(kept, [event], reason=reason)

    def _compressed(self, messages: list[Message], counts: list[int], history: int, kept: set[int],
                    room: int) -> Event:
        """The seed's event. Its Compressor sees the history alone (the Assembler adds the pinned
        messages after), so the event counts history messages and tokens against the history's budget."""
        payload = {"original_count": history, "compressed_count": len(kept),
                   "estimated_tokens": sum(counts[i] for i in kept), "budget_tokens": max(room, 0)}
        if self.max_chars > 0:
            payload |= {"estimated_chars": sum(_runes(messages[i]) for i in kept), "budget_chars": self.max_chars}
        return Event("context.compressed", payload)


def _runes(message: Message) -> int:
    """Characters of a message as the seed counts them (its content's runes; tool calls' name and
    arguments too, as `chars4` counts them)."""
    return sum(len(p) for p in message.parts) + sum(len(c.name) + len(c.arguments) for c in message.tool_calls)
