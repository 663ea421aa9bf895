"""The token estimators agents use for their own decisions, as their source code defines them.

ctxlab measures with a reference counter (`Request.counter`); an agent decides when to compact
and what to keep with its own estimate. These counters reproduce those estimates, so a preset
decides exactly as its agent would while ctxlab still measures with the reference:

- ``pi_chars4``: pi-mono ``estimateTokens`` (compaction.ts): ``Math.ceil(chars / 4)`` per message,
  chars being JavaScript string lengths (UTF-16 units) of the text, plus a tool call's name and
  ``JSON.stringify(arguments)``.
- ``codex_bytes4``: Codex ``approx_token_count`` (codex-rs utils/string truncate.rs):
  ``(bytes + 3) / 4``, the ceiling of UTF-8 bytes / 4 (``bytes4`` is the floor, seed 002).
- ``langchain_approx`` and ``langchain_approx_claude``: langchain-core
  ``count_tokens_approximately`` with 4.0 and 3.3 characters per token (LangChain's
  SummarizationMiddleware picks 3.3 for Anthropic chat models): per message ``ceil(chars / cpt) + 3``,
  chars = content + ``repr(tool_calls)`` + tool_call_id + role + name.
- ``inspect_o200k``: inspect_ai ``count_text_tokens``: ``max(1, int(o200k_base(text) * 1.1))``,
  a message's texts and tool calls (function, ``json.dumps(arguments)``) joined by newlines;
  tool definitions counted as their JSON (``count_tool_tokens``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any, cast

from ctxlab.messages import Message
from ctxlab.tokens.base import CachedCounter
from ctxlab.tokens.estimators import utf16_len


def _arguments(arguments: str) -> Any:
    """Parsed JSON arguments, or None when they are not valid JSON."""
    try:
        return json.loads(arguments) if arguments else None
    except ValueError:
        return None


class PiChars4(CachedCounter):
    """pi-mono's ``estimateTokens``: ``ceil(chars / 4)`` per message (UTF-16 length)."""

    name = "pi_chars4"

    def _count_text(self, text: str) -> int:
        return -(-utf16_len(text) // 4)

    def _count_message(self, message: Message) -> int:
        chars = sum(utf16_len(p) for p in message.parts)
        for call in message.tool_calls:
            args = _arguments(call.arguments)
            # JSON.stringify of the parsed arguments: compact, non-ASCII kept as is.
            shown = call.arguments if args is None else json.dumps(args, separators=(",", ":"), ensure_ascii=False)
            chars += utf16_len(call.name) + utf16_len(shown)
        return -(-chars // 4)


class CodexBytes4(CachedCounter):
    """Codex's ``approx_token_count``: ``(utf8_bytes + 3) / 4`` per message (ceiling)."""

    name = "codex_bytes4"

    def _count_text(self, text: str) -> int:
        return (len(text.encode("utf-8", "surrogatepass")) + 3) // 4

    def _count_message(self, message: Message) -> int:
        data = "".join(message.parts) + "".join(c.name + c.arguments for c in message.tool_calls)
        return self._count_text(data) if data else 0


class LangChainApprox(CachedCounter):
    """langchain-core's ``count_tokens_approximately`` (defaults: 3 extra tokens per message, names
    counted, no usage-metadata scaling), one message at a time so counts stay additive."""

    name = "langchain_approx"
    chars_per_token = 4.0
    extra_per_message = 3

    def _count_text(self, text: str) -> int:
        return math.ceil(len(text) / self.chars_per_token)

    def _count_message(self, message: Message) -> int:
        chars = sum(len(p) for p in message.parts)
        if isinstance(message.content, str | None) and message.tool_calls:
            # Anthropic-style list content carries its tool calls itself, so LangChain adds their
            # repr only for string content; a call whose arguments are not a JSON object is no
            # tool call to LangChain (it fails to convert), so it adds nothing here.
            calls = [{"name": c.name, "args": args, "id": c.id, "type": "tool_call"}
                     for c in message.tool_calls if isinstance(args := _arguments(c.arguments), dict)]
            chars += len(repr(calls)) if calls else 0
        if message.role == "tool":
            chars += len(message.tool_call_id or "")
        chars += len(message.role) + len(message.name or "")
        return math.ceil(chars / self.chars_per_token) + self.extra_per_message


class LangChainApproxClaude(LangChainApprox):
    """``count_tokens_approximately(chars_per_token=3.3)``, LangChain's setting for Anthropic models."""

    name = "langchain_approx_claude"
    chars_per_token = 3.3


class InspectO200k(CachedCounter):
    """inspect_ai's ``count_text_tokens``: o200k_base tokens plus a 10% buffer, at least 1."""

    name = "inspect_o200k"

    @cached_property
    def _o200k(self) -> CachedCounter:
        from ctxlab.tokens import get_counter

        return cast(CachedCounter, get_counter("o200k_base"))

    def _count_text(self, text: str) -> int:
        # tiktoken's `encode` with no special token disallowed is `encode_ordinary`, what the shared
        # o200k counter counts, summing a long text's cached line chunks: a summary clipped to a
        # length (13 candidate heads) or re-rendered at the next call is not tokenized whole again.
        return max(1, int(self._o200k.count(text) * 1.1))

    def _count_message(self, message: Message) -> int:
        parts = list(message.parts)
        for call in message.tool_calls:
            args = _arguments(call.arguments)
            parts += [call.name, json.dumps(args if args is not None else {})]
        return max(1, self.count("\n".join(parts)))

    def _count_tools(self, tools: Sequence[Mapping[str, Any]]) -> int:
        """``count_tool_tokens``: every definition's JSON, concatenated, counted as one message."""
        text = "".join(json.dumps({"type": "function", "function": {
            "name": fn.get("name"), "description": fn.get("description"), "parameters": fn.get("parameters")}})
            for fn in (tool.get("function", tool) for tool in tools))
        return self.count(text)


__all__ = ["CodexBytes4", "InspectO200k", "LangChainApprox", "LangChainApproxClaude", "PiChars4"]
