"""Gemini CLI message records: the session's history as written (ids replaced in place, rewinds,
checkpoints) and each record as chat messages. Sources: see `ctxlab.datasets.logs.gemini_cli`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import TokenUsage, as_int, compact_json, epoch, first_str, tool_call

_CHECKPOINT = "\0checkpoint"
_NOT_SENT = ("info", "error", "warning")  # shown in the terminal, never part of a request


class History:
    """Every message the session held, in order, with the checkpoints that rewrote its context."""

    def __init__(self, b: LogBuilder):
        self.b = b
        self.items: dict[str, tuple[Mapping[str, Any], str]] = {}
        self.live: list[str] = []  # ids in the context now

    def put(self, record: Mapping[str, Any], where: str) -> None:
        """A message write: a new id is appended, a known one replaced where it stands."""
        if record["id"] not in self.items:
            self.live.append(record["id"])
        self.items[record["id"]] = (record, where)

    def rewind(self, target: str, where: str) -> None:
        """``$rewindTo``: the message and everything after it leave the session (gemini-cli clears
        the whole history when the id is unknown)."""
        cut = self.live.index(target) if target in self.live else 0
        for gone in self.live[cut:]:
            self.items.pop(gone, None)
            self.b.skip("message removed by a rewind ($rewindTo)")
        self.live = self.live[:cut]

    def checkpoint(self, messages: list[Any], where: str, *, first: bool) -> None:
        """A ``messages`` list: the older whole record, or a rewrite of the context (compression,
        masking) recorded as a compaction; the history keeps every message."""
        records = [m for m in messages if isinstance(m, Mapping) and isinstance(m.get("id"), str)]
        if len(records) < len(messages):
            self.b.skipped["checkpoint entry without an id"] += len(messages) - len(records)
        ids = [m["id"] for m in records]
        if first or not self.live:
            for record in records:
                self.put(record, where)
            return
        changed = [m for m in records if m["id"] in self.items and self.items[m["id"]][0] != m]
        written = [m for m in records if m["id"] not in self.items]
        if ids == self.live and not changed:
            return
        kept = [i for i in ids if i in self.items]
        after = ids.index(kept[-1]) if kept else -1
        summary = [m for m in written if ids.index(m["id"]) < after]
        self.items[f"{_CHECKPOINT}{len(self.items)}"] = ({"kept": kept[0] if kept else None, "summary": summary,
                                                         "masked": len(changed)}, where)
        for record in records[after + 1:]:
            self.put(record, where)
        self.live = ids

    def records(self) -> Iterator[tuple[Mapping[str, Any], str]]:
        """The history in order (checkpoints as ``{"kept", "summary", "masked"}`` markers)."""
        yield from self.items.values()

    def answered(self) -> set[str]:
        """Call ids answered by a user message of ``functionResponse`` parts (newer gemini-cli)."""
        return {str(p["functionResponse"].get("id")) for record, _ in self.items.values()
                if record.get("type") == "user" for p in parts(record.get("content"))
                if isinstance(p.get("functionResponse"), Mapping)}


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
        out = self.b.add("assistant", self.text([p for p in found if not p.get("thought")]), msg_id=record["id"],
                         tool_calls=[tool_call(c["id"], c.get("name"), c.get("args")) for c in calls], timestamp=when)
        self.by_id[record["id"]] = out
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
        texts = [p["text"] if isinstance(p.get("text"), str) else self.b.placeholder(_kind(p)) for p in found]
        return "\n".join(t for t in texts if t) or None

    def checkpoint(self, marker: Mapping[str, Any]) -> None:
        summary = "\n".join(t for t in (self.text(parts(m.get("content"))) for m in marker["summary"]) if t)
        self.b.compaction(summary or None, None, self.by_id.get(marker["kept"]), masked=marker["masked"])
        self.b.repairs.append("a checkpoint ($set messages) rewrote the context (compression or masked tool "
                              "outputs): recorded in meta.compactions, the history keeps every message as first sent")


def _kind(part: Mapping[str, Any]) -> str:
    if "inlineData" in part or "fileData" in part:
        data = part.get("inlineData") or part.get("fileData") or {}
        mime = str(data.get("mimeType", "")) if isinstance(data, Mapping) else ""
        return "image" if mime.startswith("image") else "file"
    return next(iter(part), "part")
