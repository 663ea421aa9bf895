"""Pieces every agent-log importer shares: located errors, tool-call dicts, token usage, text parts.

Importers are pure functions from decoded log lines to one conversation record; these helpers keep
the OpenAI shapes and the usage arithmetic in one place.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

# Part types whose `text` is plain text the model read or wrote, across Anthropic, OpenAI
# (chat and Responses API) and pi content blocks.
TEXT_PARTS = frozenset({"text", "input_text", "output_text", "summary_text", "reasoning_text"})


class LogError(Exception):
    """A log that cannot be read: why, and where (``file:line``, or the file)."""

    def __init__(self, reason: str, where: str):
        super().__init__(f"{where}: {reason}")
        self.reason, self.where = reason, where


class Line(NamedTuple):
    """One decoded entry of a log: where it is (``file:line``) and its JSON value."""

    where: str
    value: Any


class Unreadable(NamedTuple):
    """The value of a log line that did not decode (malformed JSON, bytes that are not UTF-8): the
    reason. Readers pass such a line on in its place; `ctxlab.datasets.logs.broken` decides what an
    importer does with it."""

    reason: str


class LogSource(NamedTuple):
    """The log being imported: its path, how locations name it, and notes made while reading it."""

    path: Path
    display: str
    notes: list[str]


class LogFormat(NamedTuple):
    """One importer in the registry.

    Attributes:
        name: the format name (``claude_code``, ``codex``...), also the ``name:path`` prefix.
        container: ``jsonl`` (one entry per line) or ``json`` (one document, or an array of events).
        suffixes: the files a forced format reads in a folder.
        detect: whether the first decoded values of a file are this format.
        convert: the decoded lines of one log -> one conversation record; raises `LogError`.
        part_of: the log a file belongs to, when it is a view of another log that this log's
            importer reads (Claude Code's compaction agent); such a file is not a conversation.
        convert_all: for a log holding several conversations (inspect_ai samples, Aider
            sessions): its lines -> each conversation record, or a `LogError` for one that cannot
            be read (the others still load). When set, readers use it instead of `convert`.
    """

    name: str
    container: str
    suffixes: tuple[str, ...]
    detect: Callable[[list[Any]], bool]
    convert: Callable[[Iterable[Line], LogSource], dict[str, Any]]
    part_of: Callable[[Path], Path | None] | None = None
    convert_all: Callable[[Iterable[Line], LogSource], Iterator[dict[str, Any] | LogError]] | None = None


class TokenUsage(NamedTuple):
    """What one model call reported, split the Anthropic way (`input` is the uncached part)."""

    input: int
    cache_read: int
    cache_write: int
    output: int

    @property
    def prompt(self) -> int:
        return self.input + self.cache_read + self.cache_write

    @classmethod
    def openai(cls, prompt: Any, cached: Any, output: Any, cache_write: Any = 0) -> TokenUsage:
        """OpenAI semantics: the prompt count already includes the cached tokens."""
        prompt, cached, write = as_int(prompt), as_int(cached), as_int(cache_write)
        return cls(max(prompt - cached - write, 0), cached, write, as_int(output))


def as_int(value: Any) -> int:
    """A token count from a log (missing, null or malformed counts are 0)."""
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def entry(line: Line) -> Mapping[str, Any]:
    """The line's value as an object.

    Raises:
        LogError: it did not decode, or is not a JSON object.
    """
    reason = not_an_object(line.value)
    if reason is not None:
        raise LogError(reason, line.where)
    return line.value


def not_an_object(value: Any) -> str | None:
    """Why a decoded line is not an entry: it did not decode, or is not an object (None if it is one)."""
    if isinstance(value, Unreadable):
        return value.reason
    return None if isinstance(value, Mapping) else f"entry is {type(value).__name__}, not an object"


def wrong_type(mapping: Mapping[str, Any], key: str, kind: type | tuple[type, ...], name: str = "") -> str | None:
    """Why an optional field is unusable: present with another type than `kind` (None if it is fine).
    `name` is how the reason names the field (default: its key)."""
    value = mapping.get(key)
    if value is None or isinstance(value, kind) and not (isinstance(value, bool) and bool not in _kinds(kind)):
        return None
    return f"'{name or key}' is {type(value).__name__}, not {_kind_name(kind)}"


def wrong_block(block: Any) -> str | None:
    """Why a content block is unusable: not an object, or its ``type`` not a string (None if fine)."""
    if not isinstance(block, Mapping):
        return f"a content block is {type(block).__name__}, not an object"
    problem = wrong_type(block, "type", str)
    return f"a content block's {problem}" if problem else None


def _kinds(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names: dict[Any, str] = {dict: "an object", list: "a list", str: "a string", Mapping: "an object", int: "a number",
                            bool: "a boolean"}
    return " or ".join(names.get(k, k.__name__) for k in _kinds(kind))


def compact_json(value: Any) -> str:
    """The compact JSON an API sends (the same form `Message.from_openai` gives object arguments)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tool_call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    """An OpenAI tool call; `arguments` is kept as given when it is a string, else JSON-encoded."""
    args = arguments if isinstance(arguments, str) else compact_json({} if arguments is None else arguments)
    return {"id": str(call_id), "type": "function", "function": {"name": str(name or "?"), "arguments": args}}


def epoch(value: Any) -> float | None:
    """Seconds since the epoch from an ISO-8601 string, epoch milliseconds or seconds.

    A time without a zone (OpenHands writes local times) is read as UTC, so an import gives the
    same timestamps on every machine.
    """
    if isinstance(value, str):
        try:
            moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return (moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)).timestamp()
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value / 1000 if value > 1e11 else float(value)  # pi writes milliseconds
    return None


def first_str(*values: Any) -> str | None:
    """The first non-empty string among `values`."""
    return next((v for v in values if isinstance(v, str) and v), None)
