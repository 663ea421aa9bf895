"""LangChain messages to ctxlab `Message` objects and back, for `ContextPolicyMiddleware`.

A LangChain message becomes the `Message` of its OpenAI form (langchain-core's own
`convert_to_openai_messages`) with the LangChain id (``m<i>`` when it has none); thinking blocks
are left out of what the policy reads, as in the Anthropic format. Back: a message the policy
kept untouched is the very LangChain object, a cut one a copy with the cut text (its type, id,
tool call id and other blocks kept), and a summary or marker a new message of its role.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, convert_to_openai_messages

from ctxlab.errors import CtxlabError
from ctxlab.integrations.anthropic import THINKING
from ctxlab.integrations.ids import ident
from ctxlab.messages import Message, validate_messages
from ctxlab.strategies.signals import Recorded

_NEW = {"user": HumanMessage, "assistant": AIMessage, "system": SystemMessage}


def to_ctxlab(messages: Sequence[BaseMessage]) -> tuple[Message, ...]:
    """The messages as ctxlab sees them.

    Raises:
        InvalidInputError: a message ctxlab cannot read (its index and why, e.g. an image part),
            or a tool result without its call.
    """
    out = tuple(_one(m, i) for i, m in enumerate(messages))
    validate_messages(out)
    return out


def recorded(messages: Sequence[BaseMessage]) -> tuple[Recorded, ...]:
    """The provider usage LangChain recorded on the AI messages (`usage_metadata`), as the calls
    before the request: message ``i``'s reply had a prompt of ``input_tokens`` (cache included)."""
    out = []
    for i, m in enumerate(messages):
        usage = getattr(m, "usage_metadata", None)
        if isinstance(m, AIMessage) and usage and usage.get("input_tokens"):
            out.append(Recorded(i, int(usage["input_tokens"]), int(usage.get("output_tokens") or 0)))
    return tuple(out)


def to_langchain(sent: Sequence[Message], given: Mapping[str, BaseMessage]) -> list[BaseMessage]:
    """What the policy sent, as LangChain messages (`given`: the history's messages by ctxlab id)."""
    out: list[BaseMessage] = []
    for m in sent:
        original = given.get(m.id)
        if original is not None and m.mark is None:
            out.append(original)
        elif original is not None:
            out.append(_cut(original, m))
        elif m.role in _NEW and not m.tool_calls:
            out.append(_NEW[m.role](content=m.text, id=m.id))
        else:
            raise CtxlabError(f"the policy wrote a {m.role} message {m.id!r} with tool calls or results, "
                              "which has no LangChain form here")
    return out


def _one(message: BaseMessage, index: int) -> Message:
    data = convert_to_openai_messages(message)
    if isinstance(data.get("content"), list):  # thinking stays with its message, unread
        data = {**data, "content": [p for p in data["content"] if _kind(p) not in THINKING]}
    return replace(Message.from_openai(data, index), id=message.id or ident(index))


def _kind(block: Any) -> str | None:
    """A content block's type (None for a plain string part)."""
    return block.get("type") if isinstance(block, dict) else None


def _cut(original: BaseMessage, m: Message) -> BaseMessage:
    """`original` with the policy's cut text (and cleared call inputs)."""
    content: Any = m.text
    if isinstance(original.content, list):  # thinking first (as Anthropic wants), the text, other blocks
        blocks = original.content
        content = [b for b in blocks if _kind(b) in THINKING] + [{"type": "text", "text": m.text}]
        content += [b for b in blocks if isinstance(b, dict) and _kind(b) not in (*THINKING, "text")]
    update: dict[str, Any] = {"content": content}
    if isinstance(original, AIMessage) and original.tool_calls:
        cleared = {c.id: c.arguments for c in m.tool_calls}
        update["tool_calls"] = [{**c, "args": json.loads(cleared[c["id"]])} if c["id"] in cleared else c
                                for c in original.tool_calls]
    return original.model_copy(update=update)
