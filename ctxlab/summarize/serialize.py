"""Conversations serialized to plain text before an LLM summarizes them (pi-mono).

A transcript (``[User]: ...``, ``[Assistant tool call]: read_file(path="a.py")``) is read as a
document to summarize, not a chat to continue. Long tool outputs and long argument values are
clipped head+tail around a visible omission marker, never dropped silently.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ctxlab.messages import Message, ToolCall
from ctxlab.summarize.message import unwrap
from ctxlab.summarize.toolcalls import parse_arguments, tool_names
from ctxlab.tokens import TokenCounter
from ctxlab.tokens.clip import clip_to_tokens, truncate_head_tail

TOOL_OUTPUT_TOKENS = 600
TOOL_OUTPUT_CHARS = 2400
ARGUMENT_CHARS = 600


def serialize(messages: Sequence[Message], *, counter: TokenCounter | None = None,
              tool_output_tokens: int = TOOL_OUTPUT_TOKENS) -> str:
    """The transcript of `messages`, one block per message, blank-line separated.

    Args:
        messages: the messages to serialize (a previous summary message becomes
            ``[Previous summary]``).
        counter: clips tool outputs to `tool_output_tokens` under this counter; without one they
            are clipped to `TOOL_OUTPUT_CHARS` characters.
        tool_output_tokens: the clip size of one tool output.
    """
    names = tool_names(messages)
    blocks: list[str] = []
    for message in messages:
        text = message.text.strip()
        if message.mark == "summary":
            blocks.append(f"[Previous summary]: {unwrap(text)}")
        elif message.role == "system":
            blocks.append(f"[System]: {text}")
        elif message.role == "user":
            blocks.append(f"[User]: {text}")
        elif message.role == "assistant":
            if text:
                blocks.append(f"[Assistant]: {text}")
            blocks.extend(f"[Assistant tool call]: {format_call(c)}" for c in message.tool_calls)
        elif message.role == "tool":
            name = names.get(message.tool_call_id or "", message.name or "tool")
            blocks.append(f"[Tool result {name}]: {_clip(text, counter, tool_output_tokens)}")
    return "\n\n".join(b for b in blocks if b.rstrip(": "))


def format_call(call: ToolCall) -> str:
    """``name(key="value", ...)`` with long values clipped head+tail."""
    args = parse_arguments(call.arguments)
    if not args and call.arguments.strip() not in ("", "{}"):
        return f"{call.name}({truncate_head_tail(call.arguments, ARGUMENT_CHARS, ARGUMENT_CHARS // 2, ARGUMENT_CHARS // 2)})"
    parts = []
    for key, value in args.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        clipped = truncate_head_tail(text, ARGUMENT_CHARS, ARGUMENT_CHARS // 2, ARGUMENT_CHARS // 2)
        shown = json.dumps(clipped, ensure_ascii=False) if isinstance(value, str) or clipped != text else text
        parts.append(f"{key}={shown}")
    return f"{call.name}({', '.join(parts)})"


def _clip(text: str, counter: TokenCounter | None, max_tokens: int) -> str:
    if counter is not None:
        return clip_to_tokens(text, max_tokens, counter)
    return truncate_head_tail(text, TOOL_OUTPUT_CHARS, TOOL_OUTPUT_CHARS // 2, TOOL_OUTPUT_CHARS // 2)
