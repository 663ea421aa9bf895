"""What one run of seed 002's pipeline built, and how the result accounts for it (private to `gssc`):
which input messages the structured context carries whole, in part or not at all, the pinned
fallback when it cannot hold the system prompt, and the ``gssc.build`` event."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any, NamedTuple

from ctxlab.messages import Message
from ctxlab.strategies.base import Event, Plan, Request
from ctxlab.strategies.mechanics import context
from ctxlab.strategies.seeds.gssc.packets import HISTORY, GatherInput, Packet, render


class Built(NamedTuple):
    """One pipeline run: the context text, the gather input, packet counts, the packets MinRelevance
    filtered out and the cuts made."""

    text: str
    inp: GatherInput
    gathered: int
    selected: tuple[Packet, ...]
    cuts: tuple[tuple[str, str], ...]
    filtered: tuple[Packet, ...] = ()


class Accounting(NamedTuple):
    """Where each input id went; `sources` (input order) are those whose text the context carries."""

    kept: list[str]
    truncated: list[str]
    dropped: list[str]
    sources: tuple[str, ...]


def account(messages: Sequence[Message], built: Built, q: int | None) -> Accounting:
    """Kept (whole in the context), truncated (first line in it) and dropped ids; only messages of
    selected packets count as present. The query is kept: it is sent as itself."""
    text = built.text
    candidates = {i for p in built.selected for i in p.source_ids}
    prefix = context.system_prefix(messages)
    kept: list[str] = []
    truncated: list[str] = []
    dropped: list[str] = []
    sources: list[str] = []
    for i, m in enumerate(messages):
        listed = m.id in candidates or i < prefix
        # Only a listed message can be in the text: the others are not rendered and searched for.
        snippet = (m.text if i < prefix or i == q else render(m)).strip() if listed else ""
        whole = listed and snippet in text
        partial = not whole and m.id in candidates and snippet.split("\n", 1)[0] in text
        (kept if whole or i == q else truncated if partial else dropped).append(m.id)
        if whole or partial:
            sources.append(m.id)
    return Accounting(kept, truncated, dropped, tuple(sources))


def instructions_whole(messages: Sequence[Message], text: str) -> bool:
    """Whether every system-prompt message is whole in the context (CONTRACTS: pinned, never cut)."""
    return all(m.text.strip() in text for m in messages[:context.system_prefix(messages)])


def passthrough(request: Request, available: int) -> Plan:
    """When the structured context cannot hold the whole system prompt: the pinned messages as they are."""
    messages = request.messages
    out = [messages[i] for i in sorted(context.pinned(messages))]
    after = request.cost(out) + request.overhead
    reason = (f"the system prompt and newest user message alone need {after} tokens, over the budget of "
              f"{request.budget}") if after > request.budget else None
    payload = {"available_tokens": available, "fallback": "pinned", "output_tokens": after}
    return Plan(out, events=(Event("gssc.build", payload),), reason=reason)


def build_event(built: Built, available: int, after: int) -> dict[str, Any]:
    """The `gssc.build` event: what was gathered, selected and filtered out (by MinRelevance: the
    reason a history can vanish), the cuts, and how many messages [Context] holds of its window."""
    kinds = Counter(p.type for p in built.selected)
    filtered = Counter(p.type for p in built.filtered)
    history = next((p for p in built.selected if p.type == HISTORY), None)
    kept = history.metadata.get("message_count", 0) if history else 0
    return {"available_tokens": available, "gathered": built.gathered, "selected": dict(sorted(kinds.items())),
            "filtered": dict(sorted(filtered.items())),
            "history_messages": {"kept": kept, "window": len(built.inp.window)},
            "cuts": [list(c) for c in built.cuts], "output_tokens": after, "fallback": None}


__all__ = ["Accounting", "Built", "account", "build_event", "instructions_whole", "passthrough"]
