"""Agent estimators that measure a message in the agent's own wire shape (Gemini CLI, Cline,
opencode), and the shapes themselves.

- ``gemini_chars4``: google-gemini/gemini-cli ``packages/core/src/utils/tokenCalculation.ts`` @
  5411f113 (``estimateTokenCountSync``): a text part is 1/4 token per ASCII UTF-16 unit and 1.5 per
  other unit (just ``length / 4`` above 100,000 characters); a function response is ``(name +
  JSON.stringify(response)) / 4`` with ``response = {"output": text}``; a function call is
  ``JSON.stringify(part) / 4``; the sum is floored.
- ``cline_json3``: cline/cline ``sdk/packages/shared/src/llms/tokens.ts`` @ 21cb8d25
  (``estimateTokens``: ``max(1, ceil(chars / 3))``) over ``JSON.stringify`` of the message in the
  Anthropic-style shape Cline keeps (``createTokenEstimator`` in ``compaction-shared.ts``); tool
  definitions are their JSON.
- ``opencode_chars4``: opencode ``packages/opencode/src/util/token.ts`` (``Token.estimate``:
  ``max(0, Math.round(length / 4))``), which its prune applies to a tool output's text.

Lengths are JavaScript's (UTF-16 code units) of compact JSON with non-ASCII kept, as
``JSON.stringify`` writes it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ctxlab.messages import Message
from ctxlab.tokens.base import CachedCounter
from ctxlab.tokens.estimators import utf16_len

_FULL_HEURISTIC_CHARS = 100_000  # tokenCalculation.ts MAX_CHARS_FOR_FULL_HEURISTIC


def js_json(value: Any) -> str:
    """``JSON.stringify(value)``: compact, non-ASCII written as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _arguments(raw: str) -> Any:
    try:
        return json.loads(raw) if raw else {}
    except ValueError:
        return raw


def gemini_parts(message: Message) -> list[dict[str, Any]]:
    """The message's ``parts`` as Gemini CLI sends them: text, ``functionCall`` or ``functionResponse``."""
    if message.role == "tool":
        return [{"functionResponse": {"name": message.name or "", "response": {"output": message.text}}}]
    parts: list[dict[str, Any]] = [{"text": p} for p in message.parts if p]
    parts += [{"functionCall": {"name": c.name, "args": _arguments(c.arguments)}} for c in message.tool_calls]
    return parts


def gemini_content_chars(message: Message) -> int:
    """``JSON.stringify(content).length`` of the message as one Gemini ``Content`` (what
    ``findCompressSplitPoint`` measures)."""
    role = "model" if message.role == "assistant" else "user"
    return utf16_len(js_json({"role": role, "parts": gemini_parts(message)}))


def gemini_text_tokens(text: str) -> float:
    """``estimateTextTokens`` (unfloored): ASCII units 1/4, other units 1.5, long texts ``length / 4``."""
    units = utf16_len(text)
    if units > _FULL_HEURISTIC_CHARS:
        return units / 4
    ascii_units = len(text.encode("ascii", "ignore"))
    return ascii_units / 4 + (units - ascii_units) * 1.5


class GeminiChars4(CachedCounter):
    """Gemini CLI's ``estimateTokenCountSync`` over the message's parts (see the module docstring)."""

    name = "gemini_chars4"

    def _count_text(self, text: str) -> int:
        return math.floor(gemini_text_tokens(text))

    def _count_message(self, message: Message) -> int:
        total = 0.0
        for part in gemini_parts(message):
            if "text" in part:
                total += gemini_text_tokens(part["text"])
            elif "functionResponse" in part:
                response = part["functionResponse"]
                total += (utf16_len(response["name"]) + utf16_len(js_json(response["response"]))) / 4
            else:
                total += utf16_len(js_json(part)) / 4
        return math.floor(total)


def cline_shape(message: Message) -> Any:
    """The message as Cline's Anthropic-style history holds it (the system prompt as its text)."""
    if message.role == "system":
        return message.text
    if message.role == "tool":
        return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": message.tool_call_id,
                                             "content": message.text}]}
    if not message.tool_calls:
        return {"role": message.role, "content": message.text}
    blocks: list[dict[str, Any]] = [{"type": "text", "text": p} for p in message.parts if p]
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": _arguments(c.arguments)}
               for c in message.tool_calls]
    return {"role": message.role, "content": blocks}


def _ceil3(chars: int) -> int:
    return max(1, -(-chars // 3))


class ClineJson3(CachedCounter):
    """Cline's ``estimateTokens(JSON.stringify(message).length)``: ``max(1, ceil(chars / 3))``."""

    name = "cline_json3"

    def _count_text(self, text: str) -> int:
        return _ceil3(utf16_len(text))

    def _count_message(self, message: Message) -> int:
        return _ceil3(utf16_len(js_json(cline_shape(message))))

    def _count_tools(self, tools: Sequence[Mapping[str, Any]]) -> int:
        return _ceil3(utf16_len(js_json(list(tools))))


class OpencodeChars4(CachedCounter):
    """opencode's ``Token.estimate``: ``Math.round(length / 4)`` of the text (a tool output's)."""

    name = "opencode_chars4"

    def _count_text(self, text: str) -> int:
        return (utf16_len(text) + 2) // 4  # Math.round rounds halves up

    def _count_message(self, message: Message) -> int:
        return self.count(message.text)


__all__ = ["ClineJson3", "GeminiChars4", "OpencodeChars4", "cline_shape", "gemini_content_chars", "gemini_parts",
           "gemini_text_tokens", "js_json"]
