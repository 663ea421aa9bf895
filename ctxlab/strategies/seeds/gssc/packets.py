"""Seed 002's context packets (P0..P4), the gatherers' input, and the word tokenizer they share."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxlab import caches
from ctxlab.messages import Message

INSTRUCTIONS = "instructions"
TASK = "task"
TASK_STATE = "task_state"
EVIDENCE = "evidence"
HISTORY = "history"
CUSTOM = "custom"

# The seed's PacketType.Priority(): lower is more important; P0 packets are always selected.
PRIORITY = {INSTRUCTIONS: 0, TASK: 1, TASK_STATE: 1, EVIDENCE: 2, HISTORY: 3, CUSTOM: 4}
P0_TYPES = frozenset({INSTRUCTIONS, TASK})

# Han ideographs and kana count one token per character (they have no spaces to split on);
# every other run of letters or digits is one word.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")


@dataclass(frozen=True)
class Packet:
    """One unit of context (the seed's Packet).

    Attributes:
        content: the text.
        type: instructions, task, task_state, evidence, history or custom.
        timestamp: seconds since the epoch (None: recency from the source messages' positions).
        token_count: tokens of `content` (filled in by the select phase when 0).
        relevance: keyword overlap with the query, 0..1 (a gatherer may preset it).
        recency: ``exp(-dt / tau)``.
        composite: ``relevance_weight * relevance + recency_weight * recency``.
        metadata: free-form; ``source_ids`` lists the input message ids the content came from.
        source: where it came from (history, retrieval, memory, ...), shown in [Evidence].
    """

    content: str
    type: str = CUSTOM
    timestamp: float | None = None
    token_count: int = 0
    relevance: float = 0.0
    recency: float = 0.0
    composite: float = 0.0
    metadata: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""

    @property
    def priority(self) -> int:
        return PRIORITY.get(self.type, PRIORITY[CUSTOM])

    @property
    def source_ids(self) -> tuple[str, ...]:
        return tuple(self.metadata.get("source_ids", ()))


@dataclass(frozen=True)
class GatherInput:
    """What every gatherer sees (the seed's GatherInput, plus the parameters gatherers use).

    Attributes:
        query: the newest user message's text ("" when there is none).
        query_message: that message.
        instructions: the system prompt (leading system messages, joined by blank lines).
        instruction_messages: the system prompt's messages.
        history: every other message, in order (messages after the query included).
        max_history_messages: how many of the newest `history` messages form [Context].
        top_k: how many evidence packets a retrieval gatherer returns.
    """

    query: str
    query_message: Message | None
    instructions: str
    instruction_messages: tuple[Message, ...]
    history: tuple[Message, ...]
    max_history_messages: int = 10
    top_k: int = 5

    @property
    def window(self) -> tuple[Message, ...]:
        """The newest `max_history_messages` of the history ([Context])."""
        return self.history[-self.max_history_messages:] if self.max_history_messages > 0 else ()

    @property
    def older(self) -> tuple[Message, ...]:
        """History messages before the window (what retrieval searches)."""
        return self.history[:len(self.history) - len(self.window)]


@caches.per_conversation
@functools.lru_cache(maxsize=16384)
def words(text: str) -> tuple[str, ...]:
    """Lower-cased words of `text`, each CJK character a word of its own (cached: replays re-read)."""
    return tuple(_WORD.findall(text.lower()))


@caches.per_conversation
@functools.lru_cache(maxsize=16384)
def render(message: Message) -> str:
    """A message as one text line group, the seed's ``[role] content`` with tool calls spelled out
    (cached: every turn and budget of a replay renders the same messages)."""
    body = message.text
    if message.tool_calls:
        calls = "; ".join(f"{c.name}({c.arguments})" for c in message.tool_calls)
        body = f"{body} [tool calls: {calls}]" if body else f"[tool calls: {calls}]"
    return f"[{message.role}] {body}"
