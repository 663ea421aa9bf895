"""Gemini CLI chat sessions (google-gemini/gemini-cli, ``~/.gemini/tmp/<project>/chats/session-*.json[l]``).

Source: google-gemini/gemini-cli @ 5411f113 (Aug 2026), ``packages/core/src/services/chatRecordingTypes.ts``
(``ConversationRecord``: sessionId, projectHash, startTime, lastUpdated, messages, summary, kind;
``MessageRecord``: id, timestamp, type user / gemini / info / error / warning, content (a string
or Gemini ``Part``s); gemini messages: ``toolCalls`` {id, name, args, result (the
``functionResponse`` parts the model got), status}, ``thoughts`` {subject, description},
``tokens`` {input, output, cached, thoughts, tool, total}, ``model``) and
``chatRecordingService.ts`` (how files are written and read back, ``loadConversationRecord``).

Two file shapes: the older single JSON object (``ConversationRecord`` with its ``messages``), and
JSONL since commit f744913 (April 2026): a metadata line, then one line per message write, where a
later line with the same ``id`` replaces the earlier one in place (tokens and tool calls are added
by rewriting the message), ``{"$set": {...}}`` updates the metadata (a ``messages`` list in it is a
checkpoint that replaces the context: compression, masked tool outputs), and ``{"$rewindTo": id}``
removes that message and everything after it. Newer gemini-cli also writes each tool response as a
user message of ``functionResponse`` parts (geminiChat.ts); those are the results, and the copies
in ``toolCalls[].result`` are then not used twice.

Tokens are Gemini's ``usageMetadata``: ``input`` (promptTokenCount) includes ``cached``; the
call's output is ``output`` (candidates) plus ``thoughts``. ``tool`` (toolUsePromptTokenCount) is
not part of ``prompt_tokens``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ctxlab.datasets.logs.broken import Bad, sort_lines
from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.common import Line, LogError, LogFormat, LogSource, wrong_type
from ctxlab.datasets.logs.gemini_messages import Adder, parts

NAME = "gemini_cli"
_CHECKPOINT = "\0checkpoint"
_BAD = "\0bad line"


def detect(values: list[Any]) -> bool:
    """A session file: its first value has ``sessionId`` and ``projectHash`` (a JSONL metadata
    line, or the whole older record with its ``messages``)."""
    first = values[0] if values else None
    return isinstance(first, Mapping) and isinstance(first.get("sessionId"), str) \
        and isinstance(first.get("projectHash"), str) and "type" not in first


def convert(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    """Import one session file (see the module docstring)."""
    items = sort_lines(list(lines), _check)  # read first: a cut-off last line is noted before the builder starts
    b = LogBuilder(NAME, source)
    history = History(b)
    meta: dict[str, Any] = {}
    for item in items:
        value = item.value if isinstance(item, Line) else {}
        if isinstance(item, Bad):
            history.bad(item)
        elif isinstance(value.get("$rewindTo"), str):
            history.rewind(value["$rewindTo"], item.where)
        elif isinstance(value.get("id"), str):
            history.put(value, item.where)
        elif isinstance(value.get("$set"), Mapping):
            _metadata(meta, value["$set"], history, item.where)
        else:
            _metadata(meta, value, history, item.where)
    if not meta.get("sessionId"):
        bad = [i for i in items if isinstance(i, Bad)]
        first = f" (skipped {len(bad)} bad line(s), the first at {bad[0].where}: {bad[0].reason})" if bad else ""
        raise LogError(f"no session metadata (sessionId) in this file{first}", source.display)
    adder = Adder(b, history.answered())
    for record, where in history.records():
        adder.add(record, where)
    b.meta.update({k: meta[k] for k in ("projectHash", "startTime", "lastUpdated", "kind") if meta.get(k)})
    if meta.get("summary"):
        b.meta["title"] = meta["summary"]
    if meta.get("kind") == "subagent":
        b.meta["subagent"] = True
    return b.record(meta["sessionId"])


def _check(value: Mapping[str, Any]) -> str | None:
    """Why a line cannot be read (None when it can): it is none of session metadata, a message,
    ``$set`` or ``$rewindTo``, or a message's ``toolCalls`` or ``thoughts`` is not a list."""
    if not any(isinstance(value.get(k), t) for k, t in (("$rewindTo", str), ("id", str), ("$set", Mapping),
                                                        ("sessionId", str))):
        return "a line that is neither session metadata, a message, $set nor $rewindTo"
    return wrong_type(value, "toolCalls", list) or wrong_type(value, "thoughts", list) \
        if isinstance(value.get("id"), str) else None


def _metadata(meta: dict[str, Any], update: Mapping[str, Any], history: History, where: str) -> None:
    """Session metadata; a ``messages`` list is the older whole record or a checkpoint."""
    messages = update.get("messages")
    if isinstance(messages, list):
        history.checkpoint(messages, where, first=not meta)
    meta.update({k: v for k, v in update.items() if k != "messages"})


class History:
    """Every message the session held, in order, with the checkpoints that rewrote its context."""

    def __init__(self, b: LogBuilder):
        self.b = b
        self.items: dict[str, tuple[Mapping[str, Any], str]] = {}
        self.live: list[str] = []  # ids in the context now

    def put(self, record: Mapping[str, Any], where: str) -> None:
        """A message write: a new id is appended, a known one replaced where it stands."""
        if record["id"] not in self.items:
            self.live.append(record["id"])
        self.items[record["id"]] = (record, where)

    def bad(self, bad: Bad) -> None:
        """A line that could not be used, kept in the history where it stands (see `records`)."""
        self.items[f"{_BAD}{len(self.items)}"] = ({"bad": bad}, bad.where)

    def rewind(self, target: str, where: str) -> None:
        """``$rewindTo``: the message and everything after it leave the session (gemini-cli clears
        the whole history when the id is unknown)."""
        cut = self.live.index(target) if target in self.live else 0
        for gone in self.live[cut:]:
            self.items.pop(gone, None)
            self.b.skip("message removed by a rewind ($rewindTo)")
        self.live = self.live[:cut]

    def checkpoint(self, messages: list[Any], where: str, *, first: bool) -> None:
        """A ``messages`` list: the older whole record, or a rewrite of the context (compression,
        masking) recorded as a compaction; the history keeps every message."""
        records = [m for m in messages if isinstance(m, Mapping) and isinstance(m.get("id"), str)]
        if len(records) < len(messages):
            self.b.skipped["checkpoint entry without an id"] += len(messages) - len(records)
        ids = [m["id"] for m in records]
        if first or not self.live:
            for record in records:
                self.put(record, where)
            return
        changed = [m for m in records if m["id"] in self.items and self.items[m["id"]][0] != m]
        written = [m for m in records if m["id"] not in self.items]
        if ids == self.live and not changed:
            return
        kept = [i for i in ids if i in self.items]
        after = ids.index(kept[-1]) if kept else -1
        summary = [m for m in written if ids.index(m["id"]) < after]
        self.items[f"{_CHECKPOINT}{len(self.items)}"] = ({"kept": kept[0] if kept else None, "summary": summary,
                                                         "masked": len(changed)}, where)
        for record in records[after + 1:]:
            self.put(record, where)
        self.live = ids

    def records(self) -> Iterator[tuple[Mapping[str, Any], str]]:
        """The history in order (checkpoints as ``{"kept", "summary", "masked"}`` markers, lines
        that could not be used as ``{"bad"}``)."""
        yield from self.items.values()

    def answered(self) -> set[str]:
        """Call ids answered by a user message of ``functionResponse`` parts (newer gemini-cli)."""
        return {str(p["functionResponse"].get("id")) for record, _ in self.items.values()
                if record.get("type") == "user" for p in parts(record.get("content"))
                if isinstance(p.get("functionResponse"), Mapping)}



FORMAT = LogFormat(NAME, "jsonl", (".jsonl", ".json"), detect, convert)
