"""Claude Code session logs (``~/.claude/projects/<project>/<session>.jsonl``) -> one conversation.

One JSON entry per line. ``user`` and ``assistant`` entries carry an Anthropic ``message``
(`role`, `content` as a string or blocks text / tool_use / tool_result / thinking /
redacted_thinking / image; assistant `model`, `id`, `usage`). Claude Code writes one API response
as several assistant entries that share ``message.id`` and repeat its usage: they become one
assistant message and one provider call. ``isSidechain`` entries belong to subagents and are left
out of the main conversation. A ``system`` entry with subtype ``compact_boundary``
(``compactMetadata.preTokens``) and the ``isCompactSummary`` user entry after it are one
compaction; ``summary`` entries are session titles.

What the model saw and the main log does not show is added back, each time with a line in
``meta.repairs``: a message the user typed while the model worked and that was absorbed mid-turn
(a ``queue-operation`` ``remove`` line, or a ``queued_command`` attachment), and hook output the
compaction agent's log (`ctxlab.datasets.logs.claude_compact`) shows after a main entry.
Whitespace-only text blocks (Claude Code logs ``"\n\n"`` before thinking) are not content: the
API refuses them, so they were never resent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.claude_compact import CompactionLog, compaction_logs, parent_session, record_compaction
from ctxlab.datasets.logs.common import (
    Line,
    LogError,
    LogFormat,
    LogSource,
    TokenUsage,
    as_int,
    entry,
    epoch,
    field,
    first_str,
    tool_call,
)

_ENTRY_TYPES = ("user", "assistant", "system", "summary")
_CHAIN_KEYS = ("sessionId", "leafUuid", "parentUuid")


def detect(values: list[Any]) -> bool:
    """Claude Code entries: typed, chained by uuids, and not wrapped in a ``payload`` (Codex)."""
    return any(isinstance(v, Mapping) and v.get("type") in _ENTRY_TYPES and "payload" not in v
               and any(k in v for k in _CHAIN_KEYS) for v in values)


def convert(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    """Import one session file (see the module docstring)."""
    entries = [(line.where, entry(line)) for line in lines]
    reader = _Reader(LogBuilder("claude_code", source), entries)
    main = _main_entries(entries, reader.b)
    agents = [] if reader.b.meta.get("subagent") else reader.load_compaction_logs(source)
    for where, item in main:
        reader.read(where, item)
    for log in agents:
        record_compaction(reader.b, log, reader.produced.get(str(log.cut)))
    return reader.b.record(reader.finish() or source.path.stem)


def _main_entries(entries: list[tuple[str, Mapping]], b: LogBuilder) -> list[tuple[str, Mapping]]:
    """The main conversation's entries; a file of sidechain entries only is a subagent's own log."""
    main = [(w, e) for w, e in entries if not e.get("isSidechain")]
    side = len(entries) - len(main)
    if any(e.get("type") in ("user", "assistant") for _, e in main):
        if side:
            b.meta["sidechain_entries_left_out"] = side
        return main
    if side:
        b.meta["subagent"] = True
    return entries


class _Reader:
    """Reads entries in order; `group` is the assistant message of the API response being read."""

    def __init__(self, b: LogBuilder, entries: list[tuple[str, Mapping]]):
        self.b = b
        self.group: dict[str, Any] | None = None
        self.group_key: Any = None
        self.boundary: dict[str, Any] | None = None  # the compaction whose summary comes next
        self.first: dict[str, Any] = {}
        self.blank_blocks = 0
        self.uuids = {e.get("uuid") for _, e in entries}
        self.hooks: dict[str, list] = {}
        self.produced: dict[str, dict[str, Any]] = {}  # a main entry's uuid -> the last message it made
        self.attached = {_queued(e) for _, e in entries if _queued(e)}  # queued prompts logged as attachments

    def load_compaction_logs(self, source: LogSource) -> list[CompactionLog]:
        logs, notes = compaction_logs(source.path)
        self.b.repairs.extend(notes)
        for log in logs:
            for parent, hooks in log.hooks.items():
                self.hooks.setdefault(parent, []).extend(h for h in hooks if h.uuid not in self.uuids)
        return logs

    def read(self, where: str, item: Mapping[str, Any]) -> None:
        for key in ("sessionId", "agentId", "cwd", "version"):
            if item.get(key) is not None:
                self.first.setdefault(key, item[key])
        kind = str(item.get("type"))
        handler = {"user": self.user, "assistant": self.assistant, "system": self.system,
                   "queue-operation": self.queue, "attachment": self.attachment}.get(kind)
        before = self.b.position()
        if handler is not None:
            handler(where, item)
        elif kind == "summary":
            self.b.meta["title"] = item.get("summary")
        else:
            self.b.skip(kind)
        if self.b.position() > before and item.get("uuid"):
            self.produced[str(item["uuid"])] = self.b.messages[-1]
        self._hooks_after(str(item.get("uuid")))

    def queue(self, where: str, item: Mapping[str, Any]) -> None:
        """A message typed while the model worked: ``remove`` means it was absorbed into the turn in
        progress (sent with the next request, with no user entry of its own unless an attachment
        logs it); ``dequeue`` ends in an ordinary user entry; ``popAll`` took it back to the input."""
        text = item.get("content")
        if item.get("operation") != "remove" or not isinstance(text, str) or not text.strip() or text in self.attached:
            self.b.skip(f"queue-operation:{item.get('operation')}")
            return
        self.group = None
        self.b.add("user", text, msg_id=item.get("uuid") or f"queued@{where}", timestamp=epoch(item.get("timestamp")))
        self.b.repairs.append(f"{where}: a queued user message reached the model mid-turn (queue-operation remove) "
                              "but has no user entry; added it as a user message")

    def attachment(self, where: str, item: Mapping[str, Any]) -> None:
        """A ``queued_command`` attachment is the queued message as the model got it."""
        text = _queued(item)
        if not text:
            kind = item.get("attachment", {}).get("type") if isinstance(item.get("attachment"), Mapping) else None
            self.b.skip(f"attachment:{kind}" if kind else "attachment")
            return
        self.group = None
        self.b.add("user", text, msg_id=item.get("uuid"), timestamp=epoch(item.get("timestamp")))

    def _hooks_after(self, uuid: str) -> None:
        for hook in self.hooks.pop(uuid, ()):
            self.group = None
            self.b.add("user", hook.text, msg_id=hook.uuid, timestamp=epoch(hook.timestamp))
            self.b.repairs.append(f"{hook.where}: hook output the model saw after main entry {uuid} (isMeta, "
                                  "logged only by the compaction agent); added as a user message")

    def finish(self) -> str | None:
        """Add the session's cwd and version to meta; return the conversation id."""
        if self.blank_blocks:
            self.b.repairs.append(f"dropped {self.blank_blocks} whitespace-only text block(s): not content (the API "
                                  "refuses them, so Claude Code never resends them)")
        session, agent = first_str(self.first.get("sessionId")), first_str(self.first.get("agentId"))
        for key in ("cwd", "version"):
            if self.first.get(key):
                self.b.meta[key] = self.first[key]
        return f"{session}:{agent}" if session and agent and self.b.meta.get("subagent") else session

    def assistant(self, where: str, item: Mapping[str, Any]) -> None:
        message = _message(item, where)
        key = message.get("id") or item.get("uuid") or object()
        if self.group is None or key != self.group_key:
            self.group = self.b.add("assistant", None, msg_id=message.get("id") or item.get("uuid"),
                                    timestamp=epoch(item.get("timestamp")))
            self.group_key = key
        for block in _blocks(message, where):
            self._assistant_block(block, where)
        usage = field(message, "usage", Mapping, where)
        if usage:  # every entry of a response repeats its usage: keyed, so it counts once
            self.b.call(self.group, message.get("model"), _usage(usage), key=key)

    def _assistant_block(self, block: Any, where: str) -> None:
        group, kind = self.group, block.get("type") if isinstance(block, Mapping) else None
        assert group is not None
        if kind == "tool_use":
            call = tool_call(_required(block, "id", where), block.get("name"), block.get("input"))
            if all(c["id"] != call["id"] for c in group["tool_calls"]):  # a re-logged block counts once
                group["tool_calls"].append(call)
        elif kind == "thinking":
            self.b.think(group, block.get("thinking"))
        elif kind == "redacted_thinking":
            self.b.think(group, "", redacted=True)
        elif _blank(block):
            self.blank_blocks += 1
        else:
            self.b.append_text(group, self.b.part_text(block))

    def user(self, where: str, item: Mapping[str, Any]) -> None:
        blocks, timestamp = _blocks(_message(item, where), where), epoch(item.get("timestamp"))
        if item.get("isCompactSummary"):
            self._compact_summary("\n".join(t for t in map(self.b.part_text, blocks) if t))
            return
        texts = []
        for block in blocks:
            if isinstance(block, Mapping) and block.get("type") == "tool_result":
                call_id = _required(block, "tool_use_id", where)
                self.b.add("tool", self.b.text(block.get("content")) or "", msg_id=call_id, tool_call_id=call_id,
                           timestamp=timestamp)
            elif _blank(block):
                self.blank_blocks += 1
            else:
                texts.append(self.b.part_text(block))
        if texts or not blocks:
            self.b.add("user", "\n".join(t for t in texts if t), msg_id=item.get("uuid"), timestamp=timestamp)

    def system(self, where: str, item: Mapping[str, Any]) -> None:
        if item.get("subtype") != "compact_boundary":
            self.b.skip(f"system:{item.get('subtype')}")
            return
        metadata = field(item, "compactMetadata", Mapping, where) or {}
        self.boundary = self.b.compaction(None, metadata.get("preTokens"), trigger=metadata.get("trigger"))
        self.group = None

    def _compact_summary(self, text: str) -> None:
        """The summary Claude Code continued from: it belongs to the boundary before it, not to messages."""
        if self.boundary is not None and self.boundary["summary"] is None:
            self.boundary["summary"] = text
        else:
            self.b.compaction(text, None)
        self.boundary = None


def _blank(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str) \
        and not block["text"].strip()


def _queued(item: Mapping[str, Any]) -> str | None:
    """The prompt of a ``queued_command`` attachment entry (None for anything else)."""
    attached = item.get("attachment") if item.get("type") == "attachment" else None
    prompt = attached.get("prompt") if isinstance(attached, Mapping) and attached.get("type") == "queued_command" \
        else None
    return prompt if isinstance(prompt, str) and prompt.strip() else None


def _message(item: Mapping[str, Any], where: str) -> Mapping[str, Any]:
    message = field(item, "message", Mapping, where)
    if message is None:
        raise LogError(f"{item.get('type')} entry has no 'message'", where)
    return message


def _blocks(message: Mapping[str, Any], where: str) -> list[Any]:
    content = field(message, "content", (str, list), where)
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content or []


def _required(block: Mapping[str, Any], key: str, where: str) -> str:
    value = block.get(key)
    if not isinstance(value, str) or not value:
        raise LogError(f"{block.get('type')} block has no {key!r}", where)
    return value


def _usage(usage: Mapping[str, Any]) -> TokenUsage:
    """Anthropic usage: `input_tokens` excludes the cache reads and writes."""
    return TokenUsage(as_int(usage.get("input_tokens")), as_int(usage.get("cache_read_input_tokens")),
                      as_int(usage.get("cache_creation_input_tokens")), as_int(usage.get("output_tokens")))


FORMAT = LogFormat("claude_code", "jsonl", (".jsonl",), detect, convert, parent_session)
