"""OpenAI Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) -> one conversation.

Lines are ``{timestamp, type, payload}``: ``session_meta`` (id, cwd, cli_version,
``base_instructions.text`` = the system prompt), ``turn_context`` (model), ``response_item``
(Responses API items: message, reasoning, function_call / function_call_output, custom_tool_call /
custom_tool_call_output, local_shell_call), ``event_msg`` (``token_count`` carries the last call's
usage; the other events repeat the items) and ``compacted`` (the summary Codex continued from).
Older rollouts open with a bare session object followed by bare items; both shapes load.

A model response is written as several items (reasoning, text, calls): they become one assistant
message. The ``token_count`` after them closes the call. OpenAI usage counts cached tokens inside
``input_tokens``, so prompt tokens are ``input_tokens`` and the uncached part is the difference.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ctxlab.datasets.logs.broken import sort_lines, usable
from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import (
    Line,
    LogFormat,
    LogSource,
    TokenUsage,
    as_int,
    epoch,
    first_str,
    tool_call,
)

_LINE_TYPES = ("session_meta", "turn_context", "response_item", "event_msg", "compacted")
_ITEM_TYPES = ("message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
               "custom_tool_call_output", "local_shell_call")
_OLD_SESSION_KEYS = {"id", "timestamp", "instructions", "git"}


def detect(values: list[Any]) -> bool:
    """A rollout's first line: a typed ``payload`` envelope, or the old bare session object."""
    first = values[0] if values else None
    if not isinstance(first, Mapping):
        return False
    if first.get("type") in _LINE_TYPES and "payload" in first:
        return True
    return {"id", "timestamp"} <= first.keys() <= _OLD_SESSION_KEYS


def convert(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    """Import one rollout (see the module docstring). A line that cannot be used is skipped
    (`ctxlab.datasets.logs.broken`, `_check`)."""
    items = sort_lines(lines, _check)
    first = items[0] if items else None
    counted = any(_is_usage(*_unwrap(i.value, i is first)[:2]) for i in items if isinstance(i, Line))
    reader = _Reader(LogBuilder("codex", source), counted=counted)
    for line in usable(items, reader.b):
        reader.read(line.where, *_unwrap(line.value, line is first))
    reader.b.meta["entries"] = len(items)
    return reader.b.record(reader.session_id or source.path.stem)


def _check(value: Mapping[str, Any]) -> str | None:
    """Why a line cannot be read (None when it can): a ``payload`` that is not an object, a call
    output without ``call_id``."""
    kind, payload = _unwrap(value, False)[:2]
    if not isinstance(payload, Mapping):
        return f"{kind} payload is {type(payload).__name__}, not an object"
    if payload.get("type") in ("function_call_output", "custom_tool_call_output") and \
            not isinstance(payload.get("call_id"), str):
        return f"{payload.get('type')} has no call_id"
    return None


def _unwrap(value: Mapping[str, Any], first: bool) -> tuple[str, Any, float | None]:
    """(line type, payload, timestamp) of a current envelope or of an old bare line."""
    if "payload" in value and isinstance(value.get("type"), str):
        return value["type"], value["payload"], epoch(value.get("timestamp"))
    if first and "id" in value and "type" not in value:
        return "session_meta", value, epoch(value.get("timestamp"))
    if value.get("type") in _ITEM_TYPES:
        return "response_item", value, None
    return str(value.get("record_type") or value.get("type")), value, None


def _is_usage(kind: str, payload: Any) -> bool:
    return kind == "event_msg" and isinstance(payload, Mapping) and payload.get("type") == "token_count"


class _Reader:
    """Reads lines in order. `open` is the assistant message of the response being written; with
    token counts in the file only a count (or new input) closes it, so calls answered while the
    response streams stay in one message; without them every output does."""

    def __init__(self, b: LogBuilder, counted: bool):
        self.b, self.counted = b, counted
        self.open: dict[str, Any] | None = None
        self.thinking: list[dict[str, Any]] = []
        self.session_id: str | None = None
        self.model: str | None = None
        self.last_total: Any = None
        self.last_context = 0

    def read(self, where: str, kind: str, payload: Mapping[str, Any], timestamp: float | None) -> None:
        handler = {"session_meta": self.session, "turn_context": self.turn, "response_item": self.item,
                   "event_msg": self.event, "compacted": self.compacted}.get(kind)
        if handler is None:
            self.b.skip(kind)
        else:
            handler(where, payload, timestamp)

    def session(self, where: str, payload: Mapping[str, Any], timestamp: float | None) -> None:
        if self.session_id is not None:  # a forked rollout repeats its parent's meta
            self.b.skip("session_meta (repeated)")
            return
        self.session_id = first_str(payload.get("id"), "?")
        self.b.meta.update({k: payload[k] for k in ("cwd", "cli_version", "originator") if payload.get(k)})
        base = payload.get("base_instructions")
        prompt = first_str(base.get("text") if isinstance(base, Mapping) else base, payload.get("instructions"))
        if prompt:
            self.b.add("system", prompt, msg_id="system", timestamp=timestamp)

    def turn(self, where: str, payload: Mapping[str, Any], timestamp: float | None) -> None:
        self.model = first_str(payload.get("model"), self.model)

    def item(self, where: str, payload: Mapping[str, Any], timestamp: float | None) -> None:
        kind, role = payload.get("type"), payload.get("role")
        if kind == "message" and role != "assistant":
            self._close()
            self.b.add("user" if role == "user" else "system", self.b.text(payload.get("content")),
                       msg_id=payload.get("id"), timestamp=timestamp)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            self._result(where, payload, timestamp)
        elif kind in ("message", "reasoning", "function_call", "custom_tool_call", "local_shell_call"):
            self._assistant_item(kind, payload, self._assistant(payload, timestamp))
        else:
            self.b.skip(f"response_item:{kind}")

    def _assistant(self, payload: Mapping[str, Any], timestamp: float | None) -> dict[str, Any]:
        if self.open is None:
            msg_id = payload.get("id") if payload.get("type") == "message" else None
            self.open = self.b.add("assistant", None, msg_id=msg_id, timestamp=timestamp)
            self.open["_model"] = self.model
        return self.open

    def _assistant_item(self, kind: str, payload: Mapping[str, Any], message: dict[str, Any]) -> None:
        if kind == "message":
            self.b.append_text(message, self.b.text(payload.get("content")))
        elif kind == "reasoning":
            self.b.think(message, _reasoning_text(payload, self.b), **_resent(payload))
        elif kind == "local_shell_call":
            action = payload.get("action") if isinstance(payload.get("action"), Mapping) else {}
            message["tool_calls"].append(tool_call(_call_id(payload), "local_shell", action))
        else:
            args = payload.get("arguments") if kind == "function_call" else payload.get("input")
            message["tool_calls"].append(tool_call(_call_id(payload), payload.get("name"), args))

    def _result(self, where: str, payload: Mapping[str, Any], timestamp: float | None) -> None:
        call_id = payload["call_id"]  # a string: `_check` let only such outputs in
        if not self.counted:
            self._close()
        self.b.add("tool", _output_text(payload.get("output"), self.b) or "", msg_id=call_id,
                   tool_call_id=call_id, timestamp=timestamp)

    def event(self, where: str, payload: Mapping[str, Any], timestamp: float | None) -> None:
        info = payload.get("info") if payload.get("type") == "token_count" else None
        if not isinstance(info, Mapping):
            self.b.skip(f"event_msg:{payload.get('type')}")
            return
        last, total = info.get("last_token_usage"), info.get("total_token_usage")
        if self.open is None or not isinstance(last, Mapping) or total == self.last_total:
            self.b.skip("event_msg:token_count (no new response)")  # Codex repeats counts
            return
        usage = TokenUsage.openai(last.get("input_tokens"), last.get("cached_input_tokens"), last.get("output_tokens"))
        self.b.call(self.open, self.open.pop("_model", None) or self.model, usage)
        self.last_total, self.last_context = total, as_int(last.get("total_tokens")) or usage.prompt + usage.output
        self.open = None

    def compacted(self, where: str, payload: Mapping[str, Any], timestamp: float | None) -> None:
        """Codex compacts when the last call's total tokens near the window: that is `tokens_before`.
        A ``replacement_history`` is the history Codex continued from (recent user messages kept,
        then the summary): its messages other than the summary are what the compaction kept."""
        self._close()
        summary = payload.get("message") if isinstance(payload.get("message"), str) else None
        extra: dict[str, Any] = {} if summary else {"encrypted": True}
        replacement = payload.get("replacement_history")
        if isinstance(replacement, list):
            messages = [self._kept(item) for item in replacement]
            extra["kept_messages"] = [m for m in messages if m is not None and m["content"] != summary]
            if None in messages:  # e.g. the encrypted compaction item of a remote compaction
                extra["kept_other_items"] = messages.count(None)
        self.b.compaction(summary or None, self.last_context, **extra)

    def _kept(self, item: Any) -> dict[str, Any] | None:
        """A replacement-history message as ``{"role", "content"}`` (None for other items)."""
        if not isinstance(item, Mapping) or item.get("type") != "message":
            return None
        role = item.get("role")
        text = self.b.text(item.get("content")) or ""
        return {"role": role if role in ("user", "assistant") else "system", "content": text}

    def _close(self) -> None:
        if self.open is not None:
            self.open.pop("_model", None)
        self.open = None


def _call_id(payload: Mapping[str, Any]) -> str:
    return str(payload.get("call_id") or payload.get("id") or "?")


def _resent(payload: Mapping[str, Any]) -> dict[str, Any]:
    """How a reasoning item came back in later prompts. Codex resends every history item, but a
    reasoning item's ``id`` is not serialised and its ``summary`` is display text: only
    ``encrypted_content`` (opaque, of unknown size) or raw ``reasoning_text`` content (open-weight
    models) carries reasoning to the model (openai/codex ``codex-rs/protocol/src/models.rs``,
    ``ResponseItem::Reasoning``). Without either, the reasoning never reached a later prompt."""
    if payload.get("encrypted_content"):
        return {"encrypted": True}
    content = payload.get("content")
    raw = isinstance(content, list) and any(isinstance(c, Mapping) and c.get("type") == "reasoning_text"
                                            for c in content)
    return {} if raw else {"resent": False}


def _reasoning_text(payload: Mapping[str, Any], b: LogBuilder) -> str:
    """Readable reasoning: the summaries, then any plain reasoning text (encrypted content is opaque)."""
    parts = [*(payload.get("summary") or []), *(payload.get("content") or [])]
    return "\n".join(t for t in (b.part_text(p) for p in parts if isinstance(p, Mapping | str)) if t)


def _output_text(output: Any, b: LogBuilder) -> str | None:
    """A call output: a string, content items, or (older rollouts) ``{"content", "success"}``."""
    if isinstance(output, Mapping) and "content" in output:
        output = output["content"]
    return b.text(output)


FORMAT = LogFormat("codex", "jsonl", (".jsonl",), detect, convert)
