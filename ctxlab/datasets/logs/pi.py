"""pi coding-agent sessions (badlogic/pi-mono, ``~/.pi/agent/sessions/--<cwd>--/<id>.jsonl``).

The first line is the header ``{"type": "session", "id", "cwd", "timestamp", "version"?}``.
Entries: ``message`` (an agent message: user, assistant with text / thinking / toolCall blocks,
``usage`` {input, output, cacheRead, cacheWrite} where `input` excludes the cache, ``provider``,
``model``; toolResult with toolCallId; bashExecution; custom), ``compaction`` (summary,
``firstKeptEntryId`` or, in version 1, ``firstKeptEntryIndex``; tokensBefore), ``model_change``,
``thinking_level_change``, ``branch_summary``, ``custom_message``, ``session_info``, ``label``.
From version 2 entries form a tree (``id`` / ``parentId``): like pi, the conversation is the
path from the last entry to the root; entries on other branches are counted, not imported.

What pi sends is what pi-ai's ``transformMessages`` makes of the path
(badlogic/pi-mono ``packages/ai/src/providers/transform-messages.ts``): an assistant turn whose
``stopReason`` is ``error`` or ``aborted`` is never resent, so it is left out (its call, which did
send a prompt, is still a provider call); a call left without a result gets pi's synthetic error
result "No result provided" when the next assistant or user message arrives. Sessions of format 1
(no ``version`` in the header) were written by an older pi whose transform stripped the calls that
had no result and resent the rest of the turn: there, an errored or aborted turn keeps its text
and loses its calls (measured on pi-mono's ``test/fixtures/large-session.jsonl``: after each such
turn the provider's prompt grew by the tokens of its text, and by nothing for its calls).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from ctxlab.datasets.logs.broken import Bad, Chain, sort_lines
from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import (
    Line,
    LogError,
    LogFormat,
    LogSource,
    TokenUsage,
    Unreadable,
    as_int,
    epoch,
    first_str,
    tool_call,
    wrong_block,
    wrong_type,
)
from ctxlab.datasets.logs.finish import Pairing

# What the model reads for a branch summary and a ``!`` shell command (pi's messages.ts).
BRANCH_SUMMARY = ("The following is a summary of a branch that this conversation came back from:\n\n"
                  "<summary>\n{}</summary>")
# transformMessages answers an orphaned call with this error result (pi-mono transform-messages.ts).
PI_PAIRING = Pairing("No result provided", "got no result; added pi's synthetic error result \"No result provided\" "
                     "(pi sends one when the next message arrives)", hold_interleaved=False)
NOT_RESENT = ("error", "aborted")
Entry = tuple[int, str, Mapping[str, Any]]
CHAIN = Chain("id", "parentId")  # pi's tree (session format 2 on)


def detect(values: list[Any]) -> bool:
    """A pi session starts with its header."""
    first = values[0] if values else None
    return isinstance(first, Mapping) and first.get("type") == "session" and isinstance(first.get("id"), str)


def convert(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    """Import one session file (see the module docstring). A line that cannot be used is skipped
    (`ctxlab.datasets.logs.broken`, `_check`), the entries that hung off it re-attached by ``parentId``."""
    lines = list(lines)
    items = sort_lines(lines, _check, CHAIN)
    header = items[0] if items else None
    if not isinstance(header, Line) or header.value.get("type") != "session":
        raise LogError("the first entry is not a pi session header", header.where if header else source.display)
    b = LogBuilder("pi", source)
    b.pairing = PI_PAIRING
    b.meta.update({k: header.value[k] for k in ("cwd", "version", "parentSession") if header.value.get(k) is not None})
    entries = [(n, i.where, i.value) for n, i in enumerate(items) if isinstance(i, Line)]
    reader = _Reader(b, entries, _pi_entries(lines), legacy=header.value.get("version") in (None, 1))
    reader.bad = [(n, i) for n, i in enumerate(items) if isinstance(i, Bad)]
    for item in _active_path(entries, b):
        reader.read(item)
    reader.flush(len(items))
    b.meta["entries"] = len(items)
    b.repairs.extend(f"{where}: pi's own reader skips this line (it does not parse as one entry), so from a "
                     "compaction or a resume on, the model no longer saw its entries" for where in reader.split)
    return b.record(header.value["id"])


def _pi_entries(lines: list[Line]) -> dict[int, int]:
    """pi's own entry index (``firstKeptEntryIndex``) -> the line's position here: pi reads back its
    file skipping every line that does not parse as one JSON value (entries written back to back,
    a line that does not decode); a line with a field of the wrong type still counts."""
    shared = Counter(line.where for line in lines)
    return dict(enumerate(n for n, line in enumerate(lines)
                          if shared[line.where] == 1 and not isinstance(line.value, Unreadable)))


def _check(e: Mapping[str, Any]) -> str | None:
    """Why an entry cannot be read (None when it can): an ``id``/``parentId`` that is not a string; a
    message entry without a ``message`` object, with ``content`` neither a string nor a list of
    block objects (with a string ``type``) or ``usage`` not an object, a toolResult without
    ``toolCallId``, a toolCall block without ``id``."""
    problem = wrong_type(e, "id", str) or wrong_type(e, "parentId", str)
    if problem is not None or e.get("type") != "message":
        return problem
    message = e.get("message")
    if not isinstance(message, Mapping):
        return "message entry has no 'message' object"
    content = message.get("content")
    blocks: list[Any] = content if isinstance(content, list) else []
    return (wrong_type(message, "content", (str, list), "message.content")
            or wrong_type(message, "usage", Mapping, "message.usage")
            or next(filter(None, map(wrong_block, blocks)), None) or _missing_id(message, blocks))


def _missing_id(message: Mapping[str, Any], blocks: list[Any]) -> str | None:
    """A result or call without its id (`blocks` are objects: checked before)."""
    if message.get("role") == "toolResult" and first_str(message.get("toolCallId")) is None:
        return "toolResult message has no toolCallId"
    if message.get("role") == "assistant" and any(b.get("type") == "toolCall" and first_str(b.get("id")) is None
                                                  for b in blocks):
        return "toolCall block has no id"
    return None


def _active_path(entries: list[Entry], b: LogBuilder) -> list[Entry]:
    """The entries from the root to the last entry; in file order when the log has no tree."""
    body = entries[1:]
    by_id = {e.get("id"): (n, w, e) for n, w, e in body if e.get("id") is not None}
    if not by_id:
        return body
    path, current = [], body[-1] if body else None
    while current is not None:
        path.append(current)
        parent = current[2].get("parentId")
        if parent is not None and parent not in by_id:
            b.repairs.append(f"{current[1]}: parent entry {parent!r} is missing; read the whole file in order")
            return body
        current = by_id.get(parent) if parent is not None else None
    if len(path) < len(body):
        b.meta["off_branch_entries"] = len(body) - len(path)
    return path[::-1]


class _Reader:
    """Reads the path's entries; `positions` maps a file entry to the first message it produced."""

    def __init__(self, b: LogBuilder, entries: list[Entry], pi_index: dict[int, int], *, legacy: bool = False):
        self.b = b
        self.legacy = legacy  # session format 1: an older pi resent failed turns without their calls
        self.index_of = {e.get("id"): n for n, _, e in entries if e.get("id") is not None}
        lines = Counter(where for _, where, _ in entries)
        self.split = [where for where, count in lines.items() if count > 1]
        self.pi_index = pi_index
        self.positions: dict[int, int] = {}
        self.bad: list[tuple[int, Bad]] = []  # lines skipped, in file order: recorded where they stand

    def flush(self, before: int) -> None:
        """Record the skipped lines before file position `before` at the current message position."""
        while self.bad and self.bad[0][0] < before:
            bad = self.bad.pop(0)[1]
            self.b.bad_line(bad.where, bad.reason, bad.note)

    def read(self, item: Entry) -> None:
        n, where, e = item
        self.flush(n)
        self.positions[n] = self.b.position()
        kind, timestamp = e.get("type"), epoch(e.get("timestamp"))
        if kind == "message":
            self.message(where, e, timestamp)
        elif kind == "compaction":
            self.compaction(e)
        elif kind == "custom_message":
            self.b.add("user", self.b.text(e.get("content")), msg_id=e.get("id"), timestamp=timestamp)
        elif kind == "branch_summary" and e.get("summary"):
            self.b.add("user", BRANCH_SUMMARY.format(e["summary"]), msg_id=e.get("id"), timestamp=timestamp)
        elif kind == "session_info" and e.get("name"):
            self.b.meta["title"] = e["name"]
        else:
            self.b.skip(kind)

    def message(self, where: str, e: Mapping[str, Any], entry_time: float | None) -> None:
        message = e["message"]  # an object: `_check` let only such entries in
        role, msg_id = message.get("role"), e.get("id")
        timestamp = epoch(message.get("timestamp")) or entry_time
        if role == "assistant":
            self.assistant(where, message, msg_id, timestamp)
        elif role == "toolResult":
            self.tool_result(where, message, msg_id, timestamp)
        elif role == "bashExecution" and message.get("excludeFromContext"):
            self.b.skip("bashExecution (excluded from context)")
        elif role in ("user", "custom", "hookMessage", "bashExecution"):
            text = bash_text(message) if role == "bashExecution" else self.b.text(message.get("content"))
            self.b.add("user", text, msg_id=msg_id, timestamp=timestamp, where=where)
        else:
            self.b.skip(f"message:{role}")

    def tool_result(self, where: str, message: Mapping[str, Any], msg_id: Any, timestamp: float | None) -> None:
        call_id = message["toolCallId"]
        self.b.add("tool", self.b.text(message.get("content")) or "", msg_id=msg_id, tool_call_id=call_id, where=where,
                   name=first_str(message.get("toolName")), timestamp=timestamp)

    def assistant(self, where: str, message: Mapping[str, Any], msg_id: Any, timestamp: float | None) -> None:
        out = self.b.add("assistant", None, msg_id=msg_id, timestamp=timestamp, where=where)
        self._call(out, message)
        stop = message.get("stopReason")
        failed = stop in NOT_RESENT
        if failed and not self.legacy:  # its call sent a prompt, but pi never resends the turn
            out["_drop"] = (f"dropped the {stop} assistant message {msg_id or where}: pi never resends an errored "
                            "or aborted turn (transform-messages.ts)")
            return
        stripped = 0
        for block in message.get("content") or []:
            kind = block.get("type") if isinstance(block, Mapping) else None
            if kind == "toolCall" and failed:  # format 1: the older pi stripped calls without a result
                stripped += 1
            elif kind == "toolCall":
                out["tool_calls"].append(tool_call(block["id"], block.get("name"), block.get("arguments")))
            elif kind == "thinking":
                self.b.think(out, block.get("thinking"))
            else:
                self.b.append_text(out, self.b.part_text(block))
        if stripped:
            self.b.repairs.append(f"left out the {stripped} tool call(s) of the {stop} assistant message "
                                  f"{msg_id or where}: the pi of session format 1 stripped calls without a result "
                                  "and resent the rest of the turn")

    def _call(self, out: dict[str, Any], message: Mapping[str, Any]) -> None:
        usage = message.get("usage")
        if isinstance(usage, Mapping):
            self.b.call(out, first_str(message.get("model")), TokenUsage(
                as_int(usage.get("input")), as_int(usage.get("cacheRead")), as_int(usage.get("cacheWrite")),
                as_int(usage.get("output"))))

    def compaction(self, e: Mapping[str, Any]) -> None:
        """pi keeps the entries from the first kept one on: the messages before it were summarised."""
        index = e.get("firstKeptEntryIndex")
        kept = self.index_of.get(e.get("firstKeptEntryId"), self.pi_index.get(index) if isinstance(index, int) else None)
        self.b.compaction(first_str(e.get("summary")), e.get("tokensBefore"),
                          self.positions.get(kept) if isinstance(kept, int) else None)


def bash_text(message: Mapping[str, Any]) -> str:
    """A ``!`` command as pi shows it to the model: the command, its output, how it ended."""
    output = message.get("output")
    text = f"Ran `{message.get('command', '')}`\n" + (f"```\n{output}\n```" if output else "(no output)")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif as_int(message.get("exitCode")):
        text += f"\n\nCommand exited with code {message['exitCode']}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


FORMAT = LogFormat("pi", "jsonl", (".jsonl",), detect, convert)
