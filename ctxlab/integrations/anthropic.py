"""Anthropic Messages lists in and out of a policy: reading them (`parse`); `anthropic_render` writes back.

The system prompt: Anthropic takes it as the request's own ``system`` parameter, but a policy has
to count and keep it, so it comes as an optional first message ``{"role": "system", "content":
text or text blocks}`` and goes back the same way (`split_system` parts it for the request).

Content blocks:

- ``text``: the message's text parts;
- ``tool_use`` (assistant): a tool call, its ``input`` as compact JSON;
- ``tool_result`` (user): a ``tool`` message of its own, id ``m<i>.<j>`` (message ``i``, block
  ``j``), with its text. As Anthropic requires, results come before any text of their message and
  answer the ``tool_use`` blocks of the assistant message right before it, every one of them;
- ``thinking``, ``redacted_thinking`` (assistant): not shown to the policy (ctxlab's message model
  has no thinking, so it neither counts nor summarizes them); they stay with their message.

Anything else (images, documents, server tools) is refused, naming the message and the block.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ctxlab.errors import InvalidInputError
from ctxlab.integrations.ids import ident
from ctxlab.integrations.openai import check_list
from ctxlab.messages import Message, ToolCall, validate_messages

THINKING = frozenset({"thinking", "redacted_thinking"})


def parse(messages: Sequence[Any]) -> tuple[Message, ...]:
    """The messages as ctxlab `Message` objects (see the module docstring for the ids).

    Raises:
        InvalidInputError: naming the first malformed message (and block) and why, or a tool
            result without the ``tool_use`` it answers.
    """
    out: list[Message] = []
    for i, data in enumerate(check_list(messages)):
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"message {i} is {type(data).__name__}, not an object")
        role = data.get("role")
        if role == "system" and i == 0:
            out.append(Message("system", _text(data.get("content"), f"message {i}"), id=ident(i)))
        elif role == "user":
            out += _user(data.get("content"), i)
        elif role == "assistant":
            out.append(_assistant(data.get("content"), i))
        else:
            where = "only the first message may be the system prompt" if role == "system" else f"unknown role {role!r}"
            raise InvalidInputError(f"message {i}: {where} (valid: system first, then user and assistant)")
    _check_pairs(messages)
    validate_messages(out)
    return tuple(out)


def split_system(messages: Sequence[Any]) -> tuple[Any, list[Any]]:
    """``(system, messages)`` for ``client.messages.create(system=..., messages=...)``: the first
    message's content when it is the system prompt (else None), and the rest."""
    if messages and isinstance(messages[0], Mapping) and messages[0].get("role") == "system":
        return messages[0]["content"], list(messages[1:])
    return None, list(messages)


def blocks(content: Any, where: str) -> list[Mapping[str, Any]]:
    """A message's content as a list of blocks (a string is one text block).

    Raises:
        InvalidInputError: content that is neither text nor a list of typed blocks.
    """
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list) or not all(isinstance(b, Mapping) and isinstance(b.get("type"), str)
                                                for b in content):
        raise InvalidInputError(f"{where}: content must be text or a list of typed blocks")
    return content


def compact(value: Any) -> str:
    """A tool call's input as the compact JSON a policy counts (as `Message.from_openai` writes it)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _user(content: Any, i: int) -> list[Message]:
    if isinstance(content, str):
        return [Message("user", content, id=ident(i))]
    out, texts = [], []
    for j, block in enumerate(blocks(content, f"message {i}")):
        where = f"message {i} block {j}"
        if block["type"] == "text":
            texts.append(_text([block], where))
        elif block["type"] == "tool_result" and not texts:
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str):
                raise InvalidInputError(f"{where}: tool_result without a tool_use_id")
            out.append(Message("tool", _text(block.get("content", ""), where), id=ident(i, j), tool_call_id=call_id))
        else:
            why = "comes after text (tool results go first)" if block["type"] == "tool_result" else "is not supported"
            raise InvalidInputError(f"{where}: a {block['type']!r} block {why}")
    return [*out, Message("user", tuple(texts), id=ident(i))] if texts else out


def _assistant(content: Any, i: int) -> Message:
    if isinstance(content, str):
        return Message("assistant", content, id=ident(i))
    texts, calls = [], []
    for j, block in enumerate(blocks(content, f"message {i}")):
        where = f"message {i} block {j}"
        if block["type"] == "text":
            texts.append(_text([block], where))
        elif block["type"] == "tool_use":
            if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                raise InvalidInputError(f"{where}: tool_use needs an id and a name")
            calls.append(ToolCall(block["id"], block["name"], compact(block.get("input", {}))))
        elif block["type"] not in THINKING:
            raise InvalidInputError(f"{where}: a {block['type']!r} block is not supported")
    return Message("assistant", tuple(texts) or None, id=ident(i), tool_calls=tuple(calls))


def _text(content: Any, where: str) -> str:
    """The text of text content (a string, or text blocks joined by newlines)."""
    parts = []
    for block in blocks(content, where):
        if block["type"] != "text" or not isinstance(block.get("text"), str):
            raise InvalidInputError(f"{where}: a {block['type']!r} block where only text is supported")
        parts.append(block["text"])
    return "\n".join(parts)


def _check_pairs(messages: Sequence[Mapping[str, Any]]) -> None:
    """Anthropic's pairing: the tool results of a message answer exactly the tool calls of the one before it."""
    asked: set[str] = set()
    for i, data in enumerate(messages):
        content = data.get("content")
        found = blocks(content, f"message {i}") if isinstance(content, list) else []
        answered = {b.get("tool_use_id"): j for j, b in enumerate(found) if b["type"] == "tool_result"}
        orphan = next((j for call, j in answered.items() if call not in asked), None)
        if orphan is not None:
            raise InvalidInputError(f"message {i} block {orphan}: tool_result for {found[orphan].get('tool_use_id')!r} "
                                    "has no tool_use in the assistant message before it")
        if asked - set(answered):
            raise InvalidInputError(f"message {i - 1}: tool_use {sorted(asked - set(answered))} not answered by "
                                    "a tool_result in the message after it")
        asked = {b["id"] for b in found if b["type"] == "tool_use"} if data.get("role") == "assistant" else set()
    if asked:
        raise InvalidInputError(f"message {len(messages) - 1}: tool_use {sorted(asked)} never answered")
