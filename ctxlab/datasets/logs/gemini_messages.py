"""Gemini CLI message records as chat messages (and checkpoints as compactions). Sources: see
`ctxlab.datasets.logs.gemini_cli`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import TokenUsage, as_int, compact_json, epoch, first_str, tool_call

_NOT_SENT = ("info", "error", "warning")  # shown in the terminal, never part of a request


def parts(content: Any) -> list[Mapping[str, Any]]:
    """A ``PartListUnion`` as a list of part objects (a string is one text part)."""
    if isinstance(content, str):
        return [{"text": content}] if content else []
    items = content if isinstance(content, list) else [content]
    return [p if isinstance(p, Mapping) else {"text": p} for p in items if isinstance(p, Mapping | str)]


class Adder:
    """Turns history records into builder messages (and checkpoints into compactions)."""

    def __init__(self, b: LogBuilder, answered: set[str]):
        self.b, self.answered = b, answered
        self.by_id: dict[str, dict[str, Any]] = {}

    def add(self, record: Mapping[str, Any], where: str) -> None:
        if "kept" in record and "summary" in record:
            self.checkpoint(record)
            return
        if "bad" in record and "id" not in record:  # a line that could not be used, where it stood
            self.b.bad_line(where, record["bad"].reason)
            return
        kind, when = record.get("type"), epoch(record.get("timestamp"))
        if kind == "user":
            self.user(record, when)
        elif kind == "gemini":
            self.gemini(record, when)
        else:
            self.b.skip(f"{kind} message (shown in the terminal, not sent)" if kind in _NOT_SENT else f"message:{kind}")

    def user(self, record: Mapping[str, Any], when: float | None) -> None:
        found = parts(record.get("content"))
        responses = [p for p in found if isinstance(p.get("functionResponse"), Mapping)]
        for part in responses:
            self.result(part["functionResponse"], when)
        rest = [p for p in found if p not in responses]
        if rest or not responses:
            self.by_id[record["id"]] = self.b.add("user", self.text(rest), msg_id=record["id"], timestamp=when)

    def gemini(self, record: Mapping[str, Any], when: float | None) -> None:
        found = parts(record.get("content"))
        calls = [c for c in record.get("toolCalls") or [] if isinstance(c, Mapping) and first_str(c.get("id"))]
        calls += _part_calls(found, record["id"], {str(c["id"]) for c in calls})
        out = self.b.add("assistant", self.text([p for p in found if not p.get("thought")]), msg_id=record["id"],
                         tool_calls=[tool_call(c["id"], c.get("name"), c.get("args")) for c in calls], timestamp=when)
        self.by_id[record["id"]] = out
        for part in found:
            if part.get("thought") and isinstance(part.get("text"), str):
                self.b.think(out, part["text"])
        tokens = record.get("tokens")
        self.thoughts(out, record.get("thoughts"), as_int(tokens.get("thoughts")) if isinstance(tokens, Mapping) else 0)
        if isinstance(tokens, Mapping):
            self.b.call(out, first_str(record.get("model")), TokenUsage.openai(
                tokens.get("input"), tokens.get("cached"), as_int(tokens.get("output")) + as_int(tokens.get("thoughts"))))
        for call in calls:
            if str(call["id"]) not in self.answered:
                for part in parts(call.get("result")):
                    if isinstance(part.get("functionResponse"), Mapping):
                        self.result({"id": call["id"], **part["functionResponse"]}, when)

    def thoughts(self, out: dict[str, Any], thoughts: Any, size: int) -> None:
        """The thought summaries gemini-cli recorded, as thinking; the call's thoughts token count
        goes on the first (``call_thoughts_tokens``). Thinking the call reports without any summary
        is one redacted block of that size: its text is unknown."""
        found = [t for t in thoughts or [] if isinstance(t, Mapping)]
        for n, thought in enumerate(found):
            text = "\n".join(t for t in (thought.get("subject"), thought.get("description")) if isinstance(t, str) and t)
            self.b.think(out, text, **({"call_thoughts_tokens": size} if n == 0 and size else {}))
        if size and not found:
            self.b.think(out, "", redacted=True, call_thoughts_tokens=size)

    def result(self, response: Mapping[str, Any], when: float | None) -> None:
        body = response.get("response")
        only = body.get("output") if isinstance(body, Mapping) and set(body) == {"output"} else None
        text = only if isinstance(only, str) else compact_json(body)
        call_id = str(response.get("id"))
        self.b.add("tool", text, msg_id=call_id, tool_call_id=call_id, name=first_str(response.get("name")),
                   timestamp=when)

    def text(self, found: list[Mapping[str, Any]]) -> str | None:
        """The text parts; calls and responses are messages of their own, other parts placeholders."""
        texts = [p["text"] if isinstance(p.get("text"), str) else self.b.placeholder(_kind(p)) for p in found
                 if not isinstance(p.get("functionCall"), Mapping)]
        return "\n".join(t for t in texts if t) or None

    def checkpoint(self, marker: Mapping[str, Any]) -> None:
        summary = "\n".join(t for t in (self.text(parts(m.get("content"))) for m in marker["summary"]) if t)
        self.b.compaction(summary or None, None, self.by_id.get(marker["kept"]), masked=marker["masked"])
        self.b.repairs.append("a checkpoint ($set messages) rewrote the context (compression or masked tool "
                              "outputs): recorded in meta.compactions, the history keeps every message as first sent")


def _part_calls(found: list[Mapping[str, Any]], message_id: str, known: set[str]) -> list[dict[str, Any]]:
    """``functionCall`` parts of a model message that its ``toolCalls`` do not hold (messages a
    checkpoint rewrote keep only their parts); a call without an id gets ``<message id>:<n>``."""
    out = []
    for n, part in enumerate(p for p in found if isinstance(p.get("functionCall"), Mapping)):
        call = part["functionCall"]
        call_id = first_str(call.get("id")) or f"{message_id}:{n}"
        if call_id not in known:
            out.append({"id": call_id, "name": call.get("name"), "args": call.get("args")})
    return out


def _kind(part: Mapping[str, Any]) -> str:
    if "inlineData" in part or "fileData" in part:
        data = part.get("inlineData") or part.get("fileData") or {}
        mime = str(data.get("mimeType", "")) if isinstance(data, Mapping) else ""
        return "image" if mime.startswith("image") else "file"
    return next(iter(part), "part")
