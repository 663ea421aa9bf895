"""Reading the entries of one Claude Code conversation, in order, into a `LogBuilder`.

`ctxlab.datasets.logs.claude_code` documents the format and what is added back; this module holds
the entry handlers: responses split over several entries merged, tool results, compactions, queued
messages, the todo list Claude Code resends, and hook output the compaction agent's log shows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.claude_compact import CompactionLog, compaction_logs
from ctxlab.datasets.logs.claude_context import rendered_input, todo_reminder
from ctxlab.datasets.logs.claude_lines import BAD
from ctxlab.datasets.logs.claude_queue import PromptQueue, queued_command
from ctxlab.datasets.logs.claude_units import Entry, Unit
from ctxlab.datasets.logs.common import LogSource, TokenUsage, as_int, epoch, tool_call


class EntryReader:
    """Reads entries in order; `group` is the assistant message of the API response being read, and
    `history` is set while a resumed session's earlier history is read (its calls are not this
    conversation's)."""

    def __init__(self, b: LogBuilder, entries: list[Entry]):
        self.b = b
        self.group: dict[str, Any] | None = None
        self.group_key: Any = None
        self.history = False
        self.boundary: dict[str, Any] | None = None  # the compaction whose summary comes next
        self.blank_blocks = 0
        self.entries = entries
        self.uuids = {e.get("uuid") for _, e in entries}
        self.hooks: dict[str, list] = {}
        self.produced: dict[str, dict[str, Any]] = {}  # a main entry's uuid -> the last message it made
        self.prompts = PromptQueue(entries)
        self.reminders: list[tuple[str, str, Any]] = []  # todo lists to send with the next request
        self.todo_lists: list[str] = []  # the lines whose todo list was added

    def load_compaction_logs(self, source: LogSource) -> list[CompactionLog]:
        logs, notes = compaction_logs(source.path)
        self.b.repairs.extend(notes)
        for log in logs:
            for parent, hooks in log.hooks.items():
                self.hooks.setdefault(parent, []).extend(h for h in hooks if h.uuid not in self.uuids)
        self._place_orphans()
        return logs

    def _place_orphans(self) -> None:
        """Hook output whose main entry is not in the log hung off a line that did not decode: like the
        main log's entries that hung off such a line (`claude_lines`) it comes at that line's place,
        the skipped line written between the entries just before and just after the hook in time.
        Hook output that fits no such line stays out (a line in ``meta.repairs`` at the end)."""
        gaps = _gaps(self.entries)
        for parent in [p for p in self.hooks if p not in self.uuids]:
            for hook in self.hooks.pop(parent):
                moment = epoch(hook.timestamp)
                at = next((where for where, lo, hi in gaps if moment is not None and lo <= moment <= hi), parent)
                self.hooks.setdefault(at, []).append(hook)

    def read(self, where: str, item: Mapping[str, Any]) -> None:
        kind = str(item.get("type"))
        handler = {"user": self.user, "assistant": self.assistant, "system": self.system,
                   "queue-operation": self.queue, "attachment": self.attachment, BAD: self.bad}.get(kind)
        self.prompts.seen(item)
        before = self.b.position()
        if handler is not None:
            handler(where, item)
        elif kind == "summary":
            self.b.meta["title"] = item.get("summary")
        else:
            self.skip(kind)
        if self.b.position() > before and item.get("uuid"):
            self.produced[str(item["uuid"])] = self.b.messages[-1]
        self._hooks_after(str(item.get("uuid") or where))

    def skip(self, kind: str) -> None:
        """Count a line with no place in the conversation (a resumed history's lines are counted
        with their own session)."""
        if not self.history:
            self.b.skip(kind)

    def add_user(self, text: str, msg_id: Any, timestamp: Any) -> dict[str, Any]:
        """A user message the model got before the next request (the todo lists owed go first)."""
        self.send_reminders()
        self.group = None
        return self.b.add("user", text, msg_id=msg_id, timestamp=epoch(timestamp))

    def queue(self, where: str, item: Mapping[str, Any]) -> None:
        """A queued message absorbed mid-turn with no entry of its own (`ctxlab.datasets.logs.claude_queue`)
        becomes a user message at that point."""
        operation = item.get("operation")
        text = self.prompts.operation(operation, self.b.text(item.get("content")))
        if text is None:
            self.skip(f"queue-operation:{operation}")
            return
        self.add_user(text, item.get("uuid") or f"queued@{where}", item.get("timestamp"))
        self.b.repairs.append(f"{where}: a queued user message reached the model mid-turn (queue-operation remove) "
                              "but has no user entry; added it as a user message")

    def attachment(self, where: str, item: Mapping[str, Any]) -> None:
        """A ``queued_command`` attachment is the queued message as the model got it."""
        text = queued_command(item)
        if not text:
            kind = item.get("attachment", {}).get("type") if isinstance(item.get("attachment"), Mapping) else None
            self.skip(f"attachment:{kind}" if kind else "attachment")
            return
        self.add_user(text, item.get("uuid"), item.get("timestamp"))

    def bad(self, where: str, item: Mapping[str, Any]) -> None:
        """A line that could not be used (`ctxlab.datasets.logs.claude_lines`): counted and named,
        with a resumed session's history lines counted with their own session."""
        if not self.history:
            self.b.bad_line(where, str(item.get("reason")), str(item.get("note") or ""))

    def _hooks_after(self, uuid: str) -> None:
        for hook in self.hooks.pop(uuid, ()):
            self.add_user(hook.text, hook.uuid, hook.timestamp)
            self.b.repairs.append(f"{hook.where}: hook output the model saw after main entry {uuid} (isMeta, "
                                  "logged only by the compaction agent); added as a user message")

    def send_reminders(self) -> None:
        """The todo lists owed since the last request, as the user message Claude Code sends them in."""
        reminders, self.reminders = self.reminders, []
        for where, text, timestamp in reminders:
            self.group = None
            self.b.add("user", text, msg_id=f"todo@{where}", timestamp=epoch(timestamp))
            self.todo_lists.append(where.rsplit(":", 1)[-1])

    def finish(self, unit: Unit) -> None:
        """Add what is owed and the session's cwd and version to meta."""
        self.send_reminders()
        if self.todo_lists:
            self.b.repairs.append(f"added the todo list Claude Code <1.0.98 sends after each TodoWrite, {len(self.todo_lists)} "
                                  f"time(s) (a system-reminder in ctxlab's wording, the list from toolUseResult; lines "
                                  f"{', '.join(self.todo_lists)})")
        for hook in (h for hooks in self.hooks.values() for h in hooks):
            self.b.repairs.append(f"{hook.where}: hook output whose main entry is not in this log; left out")
        if self.blank_blocks:
            self.b.repairs.append(f"dropped {self.blank_blocks} whitespace-only text block(s): not content (the API "
                                  "refuses them, so Claude Code never resends them)")
        own = [e for _, e in unit.entries[unit.history:]]
        for key in ("cwd", "version"):
            value = next((e[key] for e in own if e.get(key)), None)
            if value:
                self.b.meta[key] = value

    def assistant(self, where: str, item: Mapping[str, Any]) -> None:
        message = _message(item)
        key = message.get("id") or item.get("uuid") or object()
        if self.group is None or key != self.group_key:
            self.send_reminders()
            self.group = self.b.add("assistant", None, msg_id=message.get("id") or item.get("uuid"),
                                    timestamp=epoch(item.get("timestamp")))
            self.group_key = key
        for block in _blocks(message):
            self._assistant_block(block)
        usage = message.get("usage")
        if usage and not self.history:  # every entry of a response repeats its usage: keyed, so it counts once
            self.b.call(self.group, message.get("model"), _usage(usage), key=key)

    def _assistant_block(self, block: Mapping[str, Any]) -> None:
        group, kind = self.group, block.get("type")
        assert group is not None
        if kind == "tool_use":
            call = tool_call(block["id"], block.get("name"), rendered_input(block.get("input")))
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
        blocks, timestamp = _blocks(_message(item)), item.get("timestamp")
        if item.get("isCompactSummary"):
            self._compact_summary("\n".join(t for t in map(self.b.part_text, blocks) if t))
            return
        texts = []
        for block in blocks:
            if block.get("type") == "tool_result":
                call_id = block["tool_use_id"]
                self.b.add("tool", self.b.text(block.get("content")) or "", msg_id=call_id, tool_call_id=call_id,
                           timestamp=epoch(timestamp))
                reminder = todo_reminder(item.get("toolUseResult"), item.get("version"))
                if reminder:
                    self.reminders.append((where, reminder, timestamp))
            elif _blank(block):
                self.blank_blocks += 1
            else:
                texts.append(self.b.part_text(block))
        if texts or not blocks:
            self.add_user("\n".join(t for t in texts if t), item.get("uuid"), timestamp)

    def system(self, where: str, item: Mapping[str, Any]) -> None:
        if item.get("subtype") != "compact_boundary":
            self.skip(f"system:{item.get('subtype')}")
            return
        metadata = item.get("compactMetadata") or {}
        self.boundary = self.b.compaction(None, metadata.get("preTokens"), trigger=metadata.get("trigger"))
        self.group = None

    def _compact_summary(self, text: str) -> None:
        """The summary Claude Code continued from: it belongs to the boundary before it, not to messages."""
        if self.boundary is not None and self.boundary["summary"] is None:
            self.boundary["summary"] = text
        else:
            self.b.compaction(text, None)
        self.boundary = None


def _gaps(entries: list[Entry]) -> list[tuple[str, float, float]]:
    """Each skipped line that did not decode (a `BAD` marker without a uuid), with the times of the
    entries just before and after it (unbounded where none)."""
    times = [epoch(e.get("timestamp")) for _, e in entries]
    return [(where, next((t for t in reversed(times[:n]) if t is not None), -math.inf),
             next((t for t in times[n + 1:] if t is not None), math.inf))
            for n, (where, e) in enumerate(entries) if e.get("type") == BAD and not e.get("uuid")]


def _blank(block: Any) -> bool:
    return isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str) \
        and not block["text"].strip()


def _message(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``message`` of a user or assistant entry (`claude_lines.check` let only such entries in)."""
    return item["message"]


def _blocks(message: Mapping[str, Any]) -> list[Any]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content or []


def _usage(usage: Mapping[str, Any]) -> TokenUsage:
    """Anthropic usage: `input_tokens` excludes the cache reads and writes."""
    return TokenUsage(as_int(usage.get("input_tokens")), as_int(usage.get("cache_read_input_tokens")),
                      as_int(usage.get("cache_creation_input_tokens")), as_int(usage.get("output_tokens")))
