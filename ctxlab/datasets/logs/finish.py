"""Finishing an imported log: the repairs that make it a valid conversation, then final positions.

A log may hold what a chat cannot: a call that never got its result (a session killed mid-tool), a
result whose call is missing, a message left empty (an aborted stream). An unanswered call gets a
marked ``[no result recorded]`` result right after it; an orphan result and an empty message are
left out. Every repair is written to ``meta.repairs``; nothing changes silently.
"""

from __future__ import annotations

from typing import Any, NamedTuple

NO_RESULT = "[no result recorded]"
Msg = dict[str, Any]


class Pairing(NamedTuple):
    """How a format answers calls the log left without a result.

    Attributes:
        no_result: the text of the result put in for such a call.
        note: how ``meta.repairs`` says so.
        hold_interleaved: move a message logged between calls and their later results after them
            (False where the agent itself answers the calls first, as pi does).
    """

    no_result: str = NO_RESULT
    note: str = f"has no result in the log; added {NO_RESULT}"
    hold_interleaved: bool = True


DEFAULT_PAIRING = Pairing()


class Finished(NamedTuple):
    """The kept messages (unique ids) and the final position of every message, kept or not
    (keyed by ``id()``; a left-out message has the position of the next kept one)."""

    kept: list[Msg]
    positions: dict[int, int]


def finish(messages: list[Msg], thought: set[int], repairs: list[str], pairing: Pairing = DEFAULT_PAIRING) -> Finished:
    """Repair `messages` (see the module docstring), appending what was done to `repairs`.

    Args:
        messages: the builder's messages, in log order.
        thought: ``id()`` of the messages that carry thinking (kept even without text).
        repairs: the log's repair notes.
        pairing: how the format answers calls left without a result.
    """
    ordered = pair_tools(messages, repairs, pairing)
    kept = [m for m in ordered if not _dropped(m, thought, repairs)]
    kept_ids = {id(m) for m in kept}
    positions, seen = {}, 0
    for message in ordered:
        positions[id(message)] = seen
        seen += id(message) in kept_ids
    unique_ids(kept)
    return Finished(kept, positions)


def pair_tools(messages: list[Msg], repairs: list[str], pairing: Pairing = DEFAULT_PAIRING) -> list[Msg]:
    """Messages with every tool call answered right after its call; orphan results marked to drop.

    A user or system message logged between calls and their results (Codex logs a developer
    message there) reached the model in log order, so the results are not orphans: the message
    moves after them, which changes no token the provider counted.
    """
    out: list[Msg] = []
    pending: dict[str, None] = {}
    held: list[Msg] = []
    for i, message in enumerate(messages):
        if message["role"] == "tool":
            if message["tool_call_id"] in pending:
                del pending[message["tool_call_id"]]
            else:
                message["_drop"] = f"dropped tool result {message['tool_call_id']!r}: no unanswered call before it"
            out.append(message)
        elif message["role"] != "assistant" and pairing.hold_interleaved and _answered_later(messages, i + 1, pending):
            repairs.append(f"moved the {message['role']} message {_label(message)} logged between tool calls and "
                           "their results after the results (the model got them in log order)")
            held.append(message)
        else:
            out.extend(_no_results(pending, repairs, pairing) + held)
            held = []
            pending = dict.fromkeys(c["id"] for c in message["tool_calls"])
            out.append(message)
    return out + _no_results(pending, repairs, pairing) + held


def _label(message: Msg) -> str:
    """A message's log id, else the start of its text (final ids are given only after repairs)."""
    text = message["content"] if isinstance(message["content"], str) else ""
    return message["id"] or message.get("_where") or repr(text[:40] + ("..." if len(text) > 40 else ""))


def _answered_later(messages: list[Msg], start: int, pending: dict[str, None]) -> bool:
    """Whether a result for a pending call comes after `start`, before the next assistant message."""
    for message in messages[start:]:
        if message["role"] == "assistant":
            return False
        if message["role"] == "tool" and message["tool_call_id"] in pending:
            return True
    return False


def _no_results(pending: dict[str, None], repairs: list[str], pairing: Pairing) -> list[Msg]:
    repairs.extend(f"tool call {call_id!r} {pairing.note}" for call_id in pending)
    return [{"role": "tool", "content": pairing.no_result, "id": f"{call_id}:no-result", "tool_calls": [],
             "tool_call_id": call_id} for call_id in pending]


def _dropped(message: Msg, thought: set[int], repairs: list[str]) -> bool:
    """Whether the message is left out: an orphan result, or empty (no text, calls or thinking)."""
    if "_drop" not in message and not message["tool_calls"] and not message["content"] \
            and message["role"] != "tool" and id(message) not in thought:
        message["_drop"] = f"dropped an empty {message['role']} message ({_label(message)})"
    if "_drop" in message:
        repairs.append(message["_drop"])
    return "_drop" in message


def anchor(at: int | Msg, messages: list[Msg], positions: dict[int, int], end: int) -> int:
    """A compaction's final index: that of the message it was anchored at (a message, or a position
    among the builder's messages, which only grow), or `end` past the last one."""
    if isinstance(at, dict):
        return positions.get(id(at), end)
    return positions[id(messages[at])] if at < len(messages) else end


def unique_ids(messages: list[Msg]) -> None:
    """Give every message a unique id: the log's own where it has one, ``~2``... on repeats."""
    used: set[str] = set()
    for i, message in enumerate(messages):
        base = message["id"] or f"m{i}"
        candidate, n = base, 1
        while candidate in used:
            n += 1
            candidate = f"{base}~{n}"
        used.add(candidate)
        message["id"] = candidate


def clean(message: Msg) -> Msg:
    """The OpenAI dict without the builder's bookkeeping and empty optional fields."""
    out = {k: v for k, v in message.items() if not k.startswith("_") and v is not None and v != []}
    out.setdefault("content", None if message["tool_calls"] else "")
    return out
