"""What a policy sent, back in the caller's Anthropic messages (`anthropic.parse` read them).

A message whose pieces the policy kept whole and untouched comes back as the very dict given. One
it changed is a copy: a cut tool result keeps its block with the cut text, a cut text becomes one
text block where the first was, a cleared tool call's block gets the cleared input, and the
thinking blocks of a kept assistant message stay as they were; blocks whose piece the policy
dropped go. A summary or marker the policy wrote becomes a new text message (a ``system`` one
beyond the first becomes ``user``: Anthropic takes one system prompt, apart from the messages).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.integrations.anthropic import blocks, compact
from ctxlab.integrations.ids import ident, origin
from ctxlab.messages import Message, ToolCall


def render(sent: Sequence[Message], given: Sequence[Any]) -> list[Any]:
    """What the policy sent, in the caller's message dicts (see the module docstring)."""
    out: list[Any] = []
    for index, group in groupby(sent, key=_index):
        pieces = {m.id: m for m in group}
        if index is None:
            out += [_new(m, first=not out) for m in pieces.values()]
            continue
        original = given[index]
        whole = set(pieces) == pieces_of(original, index) and all(m.mark is None for m in pieces.values())
        out.append(original if whole else _rebuilt(original, index, pieces))
    return out


def pieces_of(data: Mapping[str, Any], index: int) -> set[str]:
    """The ids `anthropic.parse` gave message `index`'s pieces."""
    found = blocks(data["content"], f"message {index}")
    results = {ident(index, j) for j, b in enumerate(found) if b["type"] == "tool_result"}
    whole = data["role"] != "user" or any(b["type"] == "text" for b in found)
    return results | {ident(index)} if whole else results


def _index(m: Message) -> int | None:
    found = origin(m.id)
    return None if found is None else found[0]


def _new(m: Message, *, first: bool) -> dict[str, Any]:
    """A message the policy wrote, as text (it writes no tool calls)."""
    if m.tool_calls or m.role == "tool":
        raise CtxlabError(f"the policy wrote a {m.role} message {m.id!r} with tool calls or results, "
                          "which has no Anthropic form here")
    role = m.role if m.role in ("user", "assistant") or (m.role == "system" and first) else "user"
    return {"role": role, "content": m.text}


def _rebuilt(original: Mapping[str, Any], index: int, pieces: Mapping[str, Message]) -> dict[str, Any]:
    main = pieces.get(ident(index))
    if isinstance(original["content"], str):
        return {**original, "content": main.text if main is not None else ""}
    calls = {c.id: c for c in main.tool_calls} if main is not None else {}
    out: list[Any] = []
    text_written = False
    for j, block in enumerate(original["content"]):
        kind = block["type"]
        if kind == "tool_result":
            piece = pieces.get(ident(index, j))
            if piece is not None:
                out.append(block if piece.mark is None else {**block, "content": piece.text})
        elif main is None:
            continue  # the message's text, calls and thinking went with it
        elif kind == "text" and main.mark is not None:
            if not text_written and main.text:
                out.append({"type": "text", "text": main.text})
            text_written = True
        elif kind == "tool_use":
            out.append(_tool_use(block, calls.get(block["id"])))
        else:
            out.append(block)  # untouched text, thinking
    return {**original, "content": out}


def _tool_use(block: Mapping[str, Any], call: ToolCall | None) -> Mapping[str, Any]:
    """The tool_use block as the policy sent its call: the block itself, or with a cleared input."""
    if call is None or call.arguments == compact(block.get("input", {})):
        return block
    try:
        cleared = json.loads(call.arguments)
    except ValueError:
        return block  # a policy only ever clears inputs to a JSON object; keep what the model wrote
    return {**block, "input": cleared}
