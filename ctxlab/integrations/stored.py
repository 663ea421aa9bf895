"""What an integration carries between calls, as JSON-friendly data (a LangGraph checkpoint, a
web session): `dump` and `load`.

A message the policy sent untouched is stored as a reference to the history's message with its
id (the caller has the history anyway); only what the policy wrote or cut is stored whole, with
the marks a policy reads back (a previous summary is merged, not summarized again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ctxlab.integrations.session import Tracked
from ctxlab.messages import Message, ToolCall
from ctxlab.replay.steps import Carry


def dump(tracked: Tracked) -> dict[str, Any]:
    """`tracked` as plain data (`load` reads it back)."""
    carry = tracked.carry
    return {"sent": [{"ref": m.id} if m.mark is None else _whole(m) for m in carry.sent],
            "consumed": carry.consumed, "pristine": carry.pristine, "digest": tracked.digest}


def load(data: Mapping[str, Any], history: Sequence[Message]) -> Tracked | None:
    """What `dump` stored, for `history`; None when `history` no longer begins with the history it
    was stored for (or the data is not `dump`'s)."""
    try:
        consumed = int(data["consumed"])
        by_id = {m.id: m for m in history[:consumed]}
        sent = tuple(by_id[item["ref"]] if "ref" in item else _message(item) for item in data["sent"])
        tracked = Tracked(Carry(sent, consumed, bool(data["pristine"])), str(data["digest"]))
    except (KeyError, TypeError, ValueError):
        return None
    return tracked if tracked.resume(history) is not None else None


def _whole(m: Message) -> dict[str, Any]:
    return {"role": m.role, "content": list(m.content) if isinstance(m.content, tuple) else m.content, "id": m.id,
            "name": m.name, "tool_calls": [[c.id, c.name, c.arguments] for c in m.tool_calls],
            "tool_call_id": m.tool_call_id, "mark": m.mark, "source_ids": list(m.source_ids), "timestamp": m.timestamp}


def _message(item: Mapping[str, Any]) -> Message:
    content = item["content"]
    return Message(item["role"], tuple(content) if isinstance(content, list) else content, id=item["id"],
                   name=item["name"], tool_calls=tuple(ToolCall(*c) for c in item["tool_calls"]),
                   tool_call_id=item["tool_call_id"], mark=item["mark"], source_ids=tuple(item["source_ids"]),
                   timestamp=item["timestamp"])
