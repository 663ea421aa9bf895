"""Shared helpers of the agent-log tests: the fixture folder and compact views of conversations."""

from __future__ import annotations

import os
from pathlib import Path

from ctxlab.datasets import load_conversations
from ctxlab.messages import Conversation

FIXTURES = Path(__file__).with_name("fixtures")
# The real agent logs beside the project (``CTXLAB_REALLOGS`` for a checkout elsewhere); tests that read
# them fail, never skip, when the folder is missing.
REAL = Path(os.environ.get("CTXLAB_REALLOGS") or Path(__file__).resolve().parents[3].parent / "shared" / "reallogs")
CODE = "def add(a, b):\n    return round(a + b)\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1.5, 1.0) == 2.5\n"


def load_one(source: str | Path) -> Conversation:
    """The one conversation a log source holds."""
    conversations = list(load_conversations(str(source)))
    assert len(conversations) == 1, [c.id for c in conversations]
    return conversations[0]


def load_session(source: str | Path) -> Conversation:
    """The one session a Claude Code log holds, its subagents' conversations set aside."""
    sessions = [c for c in load_conversations(str(source)) if not c.meta.get("subagent")]
    assert len(sessions) == 1, [c.id for c in sessions]
    return sessions[0]


def shape(conversation: Conversation) -> list[tuple]:
    """(role, id, call ids or the answered call id) per message: the skeleton a test pins down."""
    return [(m.role, m.id, tuple(c.id for c in m.tool_calls) or m.tool_call_id) for m in conversation.messages]


def call_summary(conversation: Conversation) -> list[tuple[int, int, int, int, int, int]]:
    """(index, prompt, input, cache read, cache write, output) of every provider call."""
    return [(c["index"], c["prompt_tokens"], c["input_tokens"], c["cache_read_tokens"], c["cache_write_tokens"],
             c["output_tokens"]) for c in conversation.meta["provider_calls"]]
