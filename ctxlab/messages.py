"""The message model: frozen `Message` and `Conversation`, and conversion from OpenAI and ShareGPT.

A `Message` mirrors one OpenAI chat message plus what ctxlab needs to account for it: a stable
`id` and a `mark` telling whether a strategy truncated it or invented it (summary, marker).
Conversion validates: a malformed message raises `InvalidInputError` with the reason, and the
loaders add the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import repeat
from typing import Any, Literal

from ctxlab import caches
from ctxlab.errors import InvalidInputError

ROLES = ("system", "user", "assistant", "tool")
Mark = Literal["truncated", "summary", "marker"]
SHAREGPT_ROLES = {
    "human": "user", "user": "user",
    "gpt": "assistant", "chatgpt": "assistant", "bing": "assistant", "bard": "assistant",
    "assistant": "assistant", "model": "assistant",
    "system": "system",
}


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One function call requested by an assistant message (`arguments` is the raw JSON string)."""

    id: str
    name: str
    arguments: str = ""

    def to_openai(self) -> dict[str, Any]:
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message.

    Attributes:
        role: system, user, assistant or tool.
        content: the text, a tuple of text parts (OpenAI list content), or None.
        id: stable within its conversation (given, else ``m<position>``).
        name: optional participant or tool name.
        tool_calls: calls an assistant message makes.
        tool_call_id: for a tool message, the call it answers.
        mark: None for an original message; ``truncated``, ``summary`` or ``marker`` when a
            strategy changed or invented it.
        source_ids: for a marked message, the ids of the input messages it stands for.
        timestamp: seconds since the epoch, when the dataset has it (gssc recency uses it).
    """

    role: str
    content: str | tuple[str, ...] | None = None
    id: str = ""
    name: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    mark: Mark | None = None
    source_ids: tuple[str, ...] = ()
    timestamp: float | None = None
    # Counters look messages up in dicts millions of times per replay; hashing nine fields each
    # time cost more than the lookup, so the hash is computed once (0 = not yet).
    _hash: int = field(default=0, init=False, repr=False, compare=False)

    def __hash__(self) -> int:
        if not self._hash:
            object.__setattr__(self, "_hash", hash((
                self.role, self.content, self.id, self.name, self.tool_calls, self.tool_call_id,
                self.mark, self.source_ids, self.timestamp)) or 1)
        return self._hash

    def __reduce__(self) -> tuple:
        # Rebuild from the fields: string hashes differ between processes, so a cached hash
        # must not travel to a worker.
        return (Message, (self.role, self.content, self.id, self.name, self.tool_calls, self.tool_call_id,
                          self.mark, self.source_ids, self.timestamp))

    @property
    def parts(self) -> tuple[str, ...]:
        """The content as text parts: () for None, one part for a string."""
        if self.content is None:
            return ()
        return (self.content,) if isinstance(self.content, str) else self.content

    @property
    def text(self) -> str:
        """The content as one string (list parts joined by newlines)."""
        return self.content if isinstance(self.content, str) else "\n".join(self.parts)

    def with_text(self, text: str, mark: Mark = "truncated") -> Message:
        """A copy whose content is `text`, marked (by default as truncated): one copy per message,
        text and mark, since policies that re-derive their context at every call (clearing every
        old tool result again) would otherwise make an equal new copy each time, which every cache
        lookup and set of sent messages then compares field by field."""
        return caches.kept(_WITH_TEXT, (self, text, mark), _WITH_TEXT_ENTRIES,
                           lambda _: replace(self, content=text, mark=mark, source_ids=self.source_ids or (self.id,)))

    def to_openai(self, *, include_id: bool = False) -> dict[str, Any]:
        """The OpenAI chat dict (list content becomes text parts again)."""
        out: dict[str, Any] = {"role": self.role}
        if include_id:
            out["id"] = self.id
        if isinstance(self.content, tuple):
            out["content"] = [{"type": "text", "text": p} for p in self.content]
        else:
            out["content"] = self.content
        if self.name is not None:
            out["name"] = self.name
        if self.tool_calls:
            out["tool_calls"] = [c.to_openai() for c in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        return out

    @classmethod
    def from_openai(cls, data: Mapping[str, Any], index: int = 0) -> Message:
        """Validate and convert one OpenAI chat dict; `index` derives the id when none is given.

        Raises:
            InvalidInputError: on a wrong type, unknown role or missing content.
        """
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"message {index} is {type(data).__name__}, not an object")
        role = data.get("role")
        if role not in ROLES:
            raise InvalidInputError(f"message {index} has unknown role {role!r} (valid: {', '.join(ROLES)})")
        tool_calls = _tool_calls(data.get("tool_calls"), index)
        content = _content(data.get("content"), index)
        if content is None and not tool_calls:
            raise InvalidInputError(f"message {index} ({role}) has no content")
        tool_call_id = _optional_str(data, "tool_call_id", index)
        if role == "tool" and tool_call_id is None:
            raise InvalidInputError(f"message {index} is a tool result without tool_call_id")
        msg_id = data.get("id")
        if msg_id is not None and not isinstance(msg_id, str | int):
            raise InvalidInputError(f"message {index} has a non-string id")
        timestamp = data.get("timestamp")
        return cls(role=role, content=content, id=str(msg_id) if msg_id is not None else f"m{index}",
                   name=_optional_str(data, "name", index), tool_calls=tool_calls,
                   tool_call_id=tool_call_id,
                   timestamp=float(timestamp) if isinstance(timestamp, int | float) and not isinstance(timestamp, bool) else None)


@dataclass(frozen=True, slots=True)
class Conversation:
    """A conversation: its messages, the tool definitions it was run with, and dataset metadata."""

    id: str
    messages: tuple[Message, ...]
    tools: tuple[Mapping[str, Any], ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)

    def to_record(self) -> dict[str, Any]:
        """The on-disk record (`{"id", "messages", "tools"?, "meta"?}`), message ids and timestamps
        included."""
        # Timestamps travel with the record (an idle trigger and gssc recency read them).
        record: dict[str, Any] = {"id": self.id, "messages": [
            m.to_openai(include_id=True) | ({"timestamp": m.timestamp} if m.timestamp is not None else {})
            for m in self.messages]}
        if self.tools:
            record["tools"] = [dict(t) for t in self.tools]
        if self.meta:
            record["meta"] = dict(self.meta)
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any], default_id: str = "") -> Conversation:
        """Validate an OpenAI-style or ShareGPT record and convert it.

        Raises:
            InvalidInputError: malformed record, empty conversation, duplicate message ids, or
                tool results and calls that do not pair up.
        """
        if not isinstance(record, Mapping):
            raise InvalidInputError(f"record is {type(record).__name__}, not an object")
        conv_id = record.get("id", default_id)
        if not isinstance(conv_id, str | int) or conv_id == "":
            raise InvalidInputError("record has no usable id")
        if "messages" in record:
            raw = record["messages"]
            if not isinstance(raw, list):
                raise InvalidInputError("'messages' is not a list")
            messages = tuple(Message.from_openai(m, i) for i, m in enumerate(raw))
        elif "conversations" in record:
            messages = from_sharegpt(record["conversations"])
        else:
            raise InvalidInputError("record has neither 'messages' nor 'conversations'")
        if not messages:
            raise InvalidInputError("empty conversation")
        validate_messages(messages)
        tools = record.get("tools") or ()
        meta = record.get("meta") or {}
        if not isinstance(tools, list | tuple) or not all(isinstance(t, Mapping) for t in tools):
            raise InvalidInputError("'tools' is not a list of tool definitions")
        if not isinstance(meta, Mapping):
            raise InvalidInputError("'meta' is not an object")
        return cls(id=str(conv_id), messages=messages, tools=tuple(tools), meta=dict(meta))


def from_sharegpt(turns: Any) -> tuple[Message, ...]:
    """Convert ShareGPT turns (`[{"from", "value"}]`) to messages (human->user, gpt->assistant)."""
    if not isinstance(turns, list):
        raise InvalidInputError("'conversations' is not a list")
    out = []
    for i, turn in enumerate(turns):
        if not isinstance(turn, Mapping):
            raise InvalidInputError(f"turn {i} is {type(turn).__name__}, not an object")
        speaker = turn.get("from")
        if speaker not in SHAREGPT_ROLES:
            raise InvalidInputError(f"turn {i} has unknown speaker {speaker!r}")
        value = turn.get("value")
        if not isinstance(value, str):
            raise InvalidInputError(f"turn {i} ({speaker}) has no text value")
        out.append(Message(role=SHAREGPT_ROLES[speaker], content=value, id=f"m{i}"))
    return tuple(out)


def validate_messages(messages: Sequence[Message]) -> None:
    """Check ids are unique and every tool result answers a call of the assistant message before it.

    Raises:
        InvalidInputError: naming the first offending message.
    """
    seen: set[str] = set()
    open_calls: set[str] = set()
    for i, m in enumerate(messages):
        if m.id in seen:
            raise InvalidInputError(f"message {i} repeats id {m.id!r}")
        seen.add(m.id)
        if m.role == "tool":
            if m.tool_call_id not in open_calls:
                raise InvalidInputError(f"message {i} is an orphan tool result (no call {m.tool_call_id!r} before it)")
            open_calls.discard(m.tool_call_id)
            continue
        if open_calls:
            raise InvalidInputError(f"message {i}: tool call(s) {sorted(open_calls)} were never answered")
        open_calls = {c.id for c in m.tool_calls}
    if open_calls:
        raise InvalidInputError(f"tool call(s) {sorted(open_calls)} at the end were never answered")


_WITH_TEXT: dict[tuple[Message, str, str], Message] = caches.per_conversation({})
_WITH_TEXT_ENTRIES = 50_000


def as_messages(messages: Iterable[Message | Mapping[str, Any]]) -> tuple[Message, ...]:
    """Accept `Message` objects or OpenAI dicts (ids derived from position where missing)."""
    if isinstance(messages, tuple) and all(map(isinstance, messages, repeat(Message))):  # checked in C
        return messages  # already a result's messages: no copy (callers compare them by identity)
    return tuple(m if isinstance(m, Message) else Message.from_openai(m, i) for i, m in enumerate(messages))


def _content(value: Any, index: int) -> str | tuple[str, ...] | None:
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, list):
        raise InvalidInputError(f"message {index} content is {type(value).__name__}, not text")
    parts = []
    for part in value:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str):
            parts.append(part["text"])
        else:
            kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
            raise InvalidInputError(f"message {index} has an unsupported content part ({kind!r}; only text parts)")
    return tuple(parts)


def _tool_calls(value: Any, index: int) -> tuple[ToolCall, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InvalidInputError(f"message {index} tool_calls is not a list")
    calls = []
    for call in value:
        fn = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(call.get("id"), str) or not isinstance(fn.get("name"), str):
            raise InvalidInputError(f"message {index} has a malformed tool call (needs id and function.name)")
        args = fn.get("arguments", "")
        # Arguments given as an object become the compact JSON an API would send.
        calls.append(ToolCall(call["id"], fn["name"], args if isinstance(args, str)
                              else json.dumps(args, ensure_ascii=False, separators=(",", ":"))))
    return tuple(calls)


def _optional_str(data: Mapping[str, Any], key: str, index: int) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidInputError(f"message {index} {key} is {type(value).__name__}, not a string")
    return value
