"""Which lines of a Claude Code log the importer can use, and what stands for the others.

A line that does not decode, or whose entry has a field of the wrong type (see `check`), is skipped
on its own (`ctxlab.datasets.logs.broken`): the entries that hung off it by ``parentUuid`` are
re-attached to its parent (or to the entry before it on its branch, main conversation or sidechain,
when the line does not show its parent), and a marker entry of type `BAD` takes its place in the
file's entries, so the line is still one conversation's (``meta.entries``), counted and named there
by `ctxlab.datasets.logs.claude_reader`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ctxlab.datasets.logs.broken import Bad, Chain, sort_lines
from ctxlab.datasets.logs.claude_units import Entry
from ctxlab.datasets.logs.common import Line, wrong_block, wrong_type

BAD = "(bad line)"  # the type of the marker entry standing for a skipped line; Claude Code writes no such type
CHAIN = Chain("uuid", "parentUuid", lambda entry: entry.get("isSidechain") is True)
_CHAIN_KEYS = (("uuid", str), ("parentUuid", str), ("sessionId", str), ("isSidechain", bool), ("agentId", str))


def readable_entries(lines: Iterable[Line]) -> list[Entry]:
    """The file's entries in order, each line that cannot be used as a `BAD` marker in its place."""
    items = sort_lines(lines, check, CHAIN)
    side = {i.value.get("uuid") for i in items if isinstance(i, Line) and CHAIN.lane(i.value)}
    return [(item.where, item.value) if isinstance(item, Line) else (item.where, _marker(item, side))
            for item in items]


def _marker(bad: Bad, side: set[Any]) -> dict[str, Any]:
    """The entry standing for a skipped line: why, and what was re-attached around it. It keeps the
    line's uuid (hook output the compaction agent logged after it still comes at its place) and,
    for a sidechain line whose parent is a sidechain entry, its place on that branch (so it counts
    with its subagent; any other marker goes with the main conversation)."""
    marker: dict[str, Any] = {"type": BAD, "reason": bad.reason, "note": bad.note}
    if bad.own:
        marker["uuid"] = bad.own
    if bad.lane and bad.target in side:
        marker.update(isSidechain=True, parentUuid=bad.target)
    return marker


def check(entry: Mapping[str, Any]) -> str | None:
    """Why an entry cannot be read (None when it can): a key that places it (uuid, parentUuid,
    sessionId, agentId: strings; isSidechain: a boolean) of another type; a user or
    assistant entry without a ``message`` object, with ``content`` neither a string nor a list of
    block objects (with a string ``type``), ``message.id`` or ``model`` not a string, a ``tool_use`` without ``id``, a ``tool_result`` without ``tool_use_id``, or
    ``usage`` that is not an object; a ``compactMetadata`` that is not an object."""
    problem = next((p for key, kind in _CHAIN_KEYS if (p := wrong_type(entry, key, kind))), None)
    kind = entry.get("type")
    if problem is None and kind in ("user", "assistant"):
        problem = _message(entry, str(kind))
    if problem is None and kind == "system":
        problem = wrong_type(entry, "compactMetadata", Mapping)
    return problem


def _message(entry: Mapping[str, Any], kind: str) -> str | None:
    message = entry.get("message")
    if message is None:
        return f"{kind} entry has no 'message'"
    if not isinstance(message, Mapping):
        return f"{kind} entry: {wrong_type(entry, 'message', Mapping)}"
    problem = wrong_type(message, "content", (str, list)) or wrong_type(message, "usage", Mapping) or \
        wrong_type(message, "id", str, "message.id") or wrong_type(message, "model", str, "message.model")
    content = message.get("content")
    for block in content if problem is None and isinstance(content, list) else ():
        problem = problem or _block(block)
    return problem


def _block(block: Any) -> str | None:
    problem = wrong_block(block)
    if problem is not None:
        return problem
    key = {"tool_use": "id", "tool_result": "tool_use_id"}.get(str(block.get("type")))
    value = block.get(key) if key else None
    return f"{block.get('type')} block has no {key!r}" if key and not (isinstance(value, str) and value) else None
