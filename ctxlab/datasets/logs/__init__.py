"""Importers for real agent session logs: Claude Code, OpenAI Codex CLI, pi, SWE-agent, OpenHands,
inspect_ai eval logs, Gemini CLI sessions and Aider chat histories.

Each importer turns one log (a file, or an OpenHands event folder) into one ordinary conversation
record ``{"id", "messages", "tools"?, "meta"}``, or one per conversation a log holds (an inspect
sample, an Aider session) (see ``docs/logs.md`` and ``docs/CONTRACTS.md``).
Logs are recognised by content, so a folder may mix them with plain ctxlab files; ``<format>:<path>``
(``claude_code:~/.claude/projects/x``) forces one format.

    from ctxlab.datasets import load_conversations
    for conversation in load_conversations("codex:~/.codex/sessions"):
        print(conversation.id, conversation.meta["provider_calls"][:1])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxlab.datasets.logs import (
    aider,
    claude_code,
    codex,
    gemini_cli,
    gemini_responses,
    inspect_log,
    openhands,
    pi,
    swe_agent,
)
from ctxlab.datasets.logs.common import Line, LogError, LogFormat, LogSource
from ctxlab.registry import Registry

FORMATS: Registry[LogFormat] = Registry("log format")
for _format in (claude_code.FORMAT, codex.FORMAT, pi.FORMAT, swe_agent.FORMAT, openhands.FORMAT, inspect_log.FORMAT,
                gemini_cli.FORMAT, gemini_responses.FORMAT, aider.FORMAT):
    FORMATS.register(_format.name, _format)
# Formats whose files carry a top-level ``messages`` list of their own (a Gemini CLI session), recognised
# before such a record is taken for an ordinary ctxlab / OpenAI one, in JSON and JSONL files alike.
_OWN_MESSAGES = (gemini_cli.FORMAT,)


def detect(values: list[Any], container: str) -> LogFormat | None:
    """The log format of a file from its first decoded values, or None for ordinary records.

    Args:
        values: the first decoded lines of a JSONL file, or the first document / array element
            of a JSON file.
        container: ``jsonl`` or ``json``.
    """
    own = next((f for f in _OWN_MESSAGES if f.detect(values)), None)
    if own is not None:
        return own
    if any(isinstance(v, Mapping) and ("messages" in v or "conversations" in v) for v in values):
        return None  # a ctxlab / OpenAI / ShareGPT record, whatever else it carries
    return next((f for f in map(FORMATS.get, FORMATS) if f.container == container and f.detect(values)), None)


def holds_no_conversation(reason: str) -> bool:
    """Whether a refusal says the file is a log that holds no conversation by design (gemini-cli
    recorded responses): in a folder such a file is a recorded skip, not an error (named alone, it
    is still refused)."""
    return reason.startswith(gemini_responses.REFUSAL)


def split_format(source: str) -> tuple[LogFormat | None, str]:
    """``"codex:~/x"`` -> (the codex format, ``"~/x"``); any other source -> (None, source)."""
    name, sep, rest = source.partition(":")
    fmt = FORMATS.get(name) if sep and name in FORMATS else None
    return (fmt, rest) if fmt is not None and rest else (None, source)


def list_formats() -> list[str]:
    """Names usable as ``<format>:<path>``."""
    return FORMATS.names()


__all__ = ["FORMATS", "Line", "LogError", "LogFormat", "LogSource", "detect", "holds_no_conversation", "list_formats",
           "split_format"]
