"""inspect_ai chat messages and model-call usage as ctxlab builder messages and `TokenUsage`.

Source: UKGovernmentBEIS/inspect_ai @ 499e6152 (Aug 2026), ``src/inspect_ai/model/_chat_message.py``
(``ChatMessageSystem/User/Assistant/Tool``: ``id``, ``content`` a string or a list of ``Content``,
assistant ``tool_calls`` ``{id, function, arguments}``, tool ``tool_call_id``, ``function``,
``error``), ``src/inspect_ai/_util/content.py`` (content parts: text, reasoning, tool_use, image,
audio, video, document, data) and ``src/inspect_ai/model/_model_output.py`` (``ModelUsage``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import LogError, first_str, tool_call

ROLES = ("system", "user", "assistant", "tool")
_MEDIA = ("image", "audio", "video", "document", "data")


def obj(mapping: Any, key: str) -> Mapping[str, Any]:
    """``mapping[key]`` when both are objects, else an empty one (logs omit and null fields)."""
    value = mapping.get(key) if isinstance(mapping, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def message_key(message: Mapping[str, Any]) -> str:
    """What the model read of a message, as one comparable string (its id, source and metadata
    are not sent, so they are left out)."""
    content = message.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    calls = [(c.get("id"), c.get("function"), c.get("arguments")) for c in message.get("tool_calls") or []
             if isinstance(c, Mapping)]
    error = message.get("error")
    return json.dumps([message.get("role"), parts, calls, message.get("tool_call_id"),
                       error.get("message") if isinstance(error, Mapping) else None], sort_keys=True, default=str)


def add_message(b: LogBuilder, message: Any, where: str, timestamp: float | None = None) -> dict[str, Any]:
    """Append one inspect message to the builder and return the builder's message.

    Raises:
        LogError: not a message object with a known role.
    """
    role = message.get("role") if isinstance(message, Mapping) else None
    if role not in ROLES:
        raise LogError(f"message has role {role!r}, not one of {', '.join(ROLES)}", where)
    text, thinking = _content(b, message.get("content"))
    msg_id = first_str(message.get("id"))
    if role == "tool":
        return _tool(b, message, text, msg_id, timestamp)
    calls = [_call(c, where) for c in message.get("tool_calls") or []] if role == "assistant" else None
    out = b.add(role, text, msg_id=msg_id, tool_calls=calls, timestamp=timestamp)
    for reasoning in thinking:
        b.think(out, reasoning.get("text"), **({"redacted": True} if reasoning.get("redacted") else {}))
    return out


def _tool(b: LogBuilder, message: Mapping[str, Any], text: str | None, msg_id: str | None,
          timestamp: float | None) -> dict[str, Any]:
    """A tool result; an error is what inspect's OpenAI conversion sends (``Error: <message>``,
    model/_openai.py), a result without a call id a user message (counted)."""
    error = message.get("error")
    if isinstance(error, Mapping) and first_str(error.get("message")):
        text = f"Error: {error['message']}"
    call_id = first_str(message.get("tool_call_id"))
    if call_id is None:
        b.repairs.append(f"tool message {msg_id or '(no id)'} has no tool_call_id; kept as a user message")
        return b.add("user", text or "", msg_id=msg_id, timestamp=timestamp)
    return b.add("tool", text or "", msg_id=msg_id, tool_call_id=call_id, name=first_str(message.get("function")),
                 timestamp=timestamp)


def _call(call: Any, where: str) -> dict[str, Any]:
    if not isinstance(call, Mapping) or not first_str(call.get("id")):
        raise LogError("assistant tool call without an id", where)
    return tool_call(call["id"], call.get("function"), call.get("arguments"))


def _content(b: LogBuilder, content: Any) -> tuple[str | None, list[dict[str, Any]]]:
    """The text the model read, and the reasoning parts (kept as thinking, never as text)."""
    if content is None or isinstance(content, str):
        return content, []
    texts: list[str] = []
    thinking: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else [content]:
        kind = part.get("type") if isinstance(part, Mapping) else None
        if kind == "reasoning":
            redacted = bool(part.get("redacted"))
            thinking.append({"text": first_str(part.get("summary")) if redacted else part.get("reasoning"),
                             "redacted": redacted and not first_str(part.get("summary"))})
        elif kind == "tool_use":  # a provider-side tool (web search, MCP): its call and result were read
            texts.append(f"[{part.get('tool_type', 'tool')} {part.get('name', '')}] {part.get('arguments', '')}\n"
                         f"{part.get('result', '')}")
        elif kind in _MEDIA:
            texts.append(b.placeholder(str(kind)))
        else:
            texts.append(b.part_text(part) or "")
    return "\n".join(t for t in texts if t) or None, thinking


def tool_definitions(tools: Any) -> list[Mapping[str, Any]]:
    """inspect ``ToolInfo`` (name, description, parameters) as OpenAI tool definitions."""
    return [{"type": "function", "function": {k: t[k] for k in ("name", "description", "parameters") if k in t}}
            for t in tools or [] if isinstance(t, Mapping) and first_str(t.get("name"))]
