"""The log of Claude Code's compaction agent (``<session>/subagents/agent-acompact-*.jsonl``).

When Claude Code compacts, it sends the whole main context plus a summarisation prompt in one
call and logs that call as a sidechain file: a copy of the context's last entries, the prompt
(a user entry) and the summary (the assistant's reply). It is not a conversation of its own but a
view of its parent session, and it shows what the main log leaves out: ``isMeta`` entries with hook
output (``<system-reminder>`` text, e.g. a PostToolUse hook's compiler errors) that the model saw
after a tool result, chained by ``parentUuid`` to the main entry they follow. The parent's
importer uses it to recover those messages and the compaction's summary and cut.

Checked against the real logs in ``shared/reallogs/claude_code`` (Claude Code 2.1.39): the
three isMeta entries of ``agent-acompact-e1f845`` hang off main tool results, and the main
log's next assistant entry skips them in its ``parentUuid`` chain although the provider counted
them (the delta after the first one is ~1,700 tokens for ~800 tokens of logged messages).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ctxlab.datasets.logs.builder import LogBuilder

PREFIX = "agent-acompact-"


class Hook(NamedTuple):
    """An isMeta entry the model saw: its uuid, text, time, and where the agent's log has it."""

    uuid: str
    text: str
    timestamp: Any
    where: str


class CompactionLog(NamedTuple):
    """What a compaction agent's log says about its parent session.

    Attributes:
        name: the file name.
        hooks: isMeta entries by the ``uuid`` of the main entry they follow.
        cut: the ``uuid`` of the last main entry the summarised context held (None if unknown).
        summary: the summary the agent wrote (None if the log has no reply).
        prompt_tokens: what the provider counted for the whole context and prompt.
    """

    name: str
    hooks: dict[str, list[Hook]]
    cut: str | None
    summary: str | None
    prompt_tokens: int | None


def compaction_logs(session_file: Path) -> tuple[list[CompactionLog], list[str]]:
    """The compaction agents' logs beside a main session file, and notes on unreadable lines."""
    folder = session_file.with_suffix("") / "subagents"
    logs, notes = [], []
    for path in sorted(folder.glob(f"{PREFIX}*.jsonl")) if folder.is_dir() else ():
        entries = []
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            try:
                value = json.loads(line) if line.strip() else None
            except json.JSONDecodeError as exc:
                notes.append(f"{path.name}:{n}: unreadable line in the compaction agent's log ({exc.msg}); ignored")
                continue
            if isinstance(value, Mapping):
                entries.append((f"{path.name}:{n}", value))
        logs.append(_read(path.name, entries))
    return logs, notes


def parent_session(path: Path) -> Path | None:
    """The main session file a compaction agent's log belongs to, when it is there."""
    if not path.name.startswith(PREFIX) or path.parent.name != "subagents":
        return None
    parent = path.parent.parent.with_suffix(".jsonl")
    return parent if parent.is_file() else None


def record_compaction(b: LogBuilder, log: CompactionLog, cut: dict[str, Any] | None) -> None:
    """Give the session's next compaction its agent's summary (when the main log lacks one) and log;
    when the main log records none, record the compaction the agent made after the `cut` message
    (the last main message its context held, past the hook output that followed it)."""
    unmatched = [c for c in b.compactions() if "agent_log" not in c]
    record = unmatched[0] if unmatched else None
    if record is None and cut is not None:
        after = next(i for i, m in enumerate(b.messages) if m is cut) + 1
        hooks = {h.uuid for found in log.hooks.values() for h in found}
        while after < len(b.messages) and b.messages[after]["id"] in hooks:
            after += 1
        record = b.compaction(log.summary, None, after, at=after)
        b.repairs.append(f"{log.name}: the main log records no compaction boundary; recorded the compaction its "
                         f"agent made, after main entry {log.cut}")
    if record is None:
        b.repairs.append(f"{log.name}: compaction agent log without a compaction or cut in this session; only its "
                         "hook output was used")
        return
    if not record.get("summary") and log.summary:
        record["summary"] = log.summary
    record.update(agent_log=log.name, agent_prompt_tokens=log.prompt_tokens)


def _read(name: str, entries: list[tuple[str, Mapping[str, Any]]]) -> CompactionLog:
    hooks: dict[str, list[Hook]] = {}
    cut = summary = prompt = None
    for where, e in entries:
        raw = e.get("message")
        message: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
        if e.get("type") == "user" and e.get("isMeta") and isinstance(message.get("content"), str):
            hooks.setdefault(str(e.get("parentUuid")), []).append(
                Hook(str(e.get("uuid")), message["content"], e.get("timestamp"), where))
        elif e.get("type") == "user":
            cut = _context_end(e, entries)
        elif e.get("type") == "assistant":
            summary = _text(message.get("content")) or summary
            prompt = _prompt_tokens(message.get("usage")) or prompt
    return CompactionLog(name, hooks, cut, summary, prompt)


def _context_end(prompt_entry: Mapping[str, Any], entries: list[tuple[str, Mapping[str, Any]]]) -> str | None:
    """The main entry the context ended at: the prompt's parent, past the agent's own isMeta copies."""
    by_uuid = {e.get("uuid"): e for _, e in entries}
    parent = prompt_entry.get("parentUuid")
    while parent in by_uuid and by_uuid[parent].get("isMeta"):
        parent = by_uuid[parent].get("parentUuid")
    return str(parent) if parent else None


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content.strip() or None
    texts = [str(b["text"]) for b in content or () if isinstance(b, Mapping) and isinstance(b.get("text"), str)]
    return "\n".join(t for t in texts if t.strip()).strip() or None


def _prompt_tokens(usage: Any) -> int | None:
    if not isinstance(usage, Mapping):
        return None
    parts = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    return sum(int(usage.get(k) or 0) for k in parts) or None
