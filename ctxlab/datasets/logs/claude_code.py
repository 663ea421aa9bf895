"""Claude Code session logs (``~/.claude/projects/<project>/<session>.jsonl``) -> conversations.

One JSON entry per line. ``user`` and ``assistant`` entries carry an Anthropic ``message``
(`role`, `content` as a string or blocks text / tool_use / tool_result / thinking /
redacted_thinking / image; assistant `model`, `id`, `usage`). Claude Code writes one API response
as several assistant entries that share ``message.id`` and repeat its usage: they become one
assistant message and one provider call. A ``system`` entry with subtype ``compact_boundary``
(``compactMetadata.preTokens``) and the ``isCompactSummary`` user entry after it are one
compaction; ``summary`` entries are session titles.

A file is usually one conversation; `ctxlab.datasets.logs.claude_units` finds the others: a second
session resumed in the same file (its conversation starts with the history it resumed), and
subagents written inline as ``isSidechain`` entries (Claude Code 1.0.x), each its own conversation
linked to the Task call that started it (``meta.parent``, and ``meta.subagents`` on the session).
Every line of the file is one conversation's (``meta.entries`` counts them). A line that cannot be
used (it does not decode, or a field has the wrong type) is skipped on its own, the ``parentUuid``
chain re-attached around it (`ctxlab.datasets.logs.claude_lines`).

What the model saw and the log shows elsewhere or not at all is added back, each time with a line
in ``meta.repairs`` (`ctxlab.datasets.logs.claude_reader`): a message the user typed while the model
worked and that was absorbed mid-turn (``queue-operation`` ``remove``, or a ``queued_command``
attachment), the todo list Claude Code resends after ``TodoWrite`` and the way the API counts a
call's non-string parameters (`ctxlab.datasets.logs.claude_context`), and hook output the
compaction agent's log (`ctxlab.datasets.logs.claude_compact`) shows after a main entry.
Whitespace-only text blocks (Claude Code logs ``"\\n\\n"`` before thinking) are not content: the
API refuses them, so they were never resent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ctxlab.datasets.logs.builder import LogBuilder
from ctxlab.datasets.logs.claude_compact import parent_session, record_compaction
from ctxlab.datasets.logs.claude_lines import readable_entries
from ctxlab.datasets.logs.claude_reader import EntryReader
from ctxlab.datasets.logs.claude_units import Unit, agent_calls, task_links, units
from ctxlab.datasets.logs.common import Line, LogError, LogFormat, LogSource

_ENTRY_TYPES = ("user", "assistant", "system", "summary")
_CHAIN_KEYS = ("sessionId", "leafUuid", "parentUuid")


def detect(values: list[Any]) -> bool:
    """Claude Code entries: typed, chained by uuids, and not wrapped in a ``payload`` (Codex)."""
    return any(isinstance(v, Mapping) and v.get("type") in _ENTRY_TYPES and "payload" not in v
               and any(k in v for k in _CHAIN_KEYS) for v in values)


def convert_all(lines: Iterable[Line], source: LogSource) -> Iterator[dict[str, Any] | LogError]:
    """Import one log file: one record per session and per subagent (see the module docstring); a
    conversation that cannot be read is its located reason, and the others still load."""
    entries = readable_entries(lines)
    found = units(entries)
    calls = agent_calls(entries)
    primary = next((u for u in found if u.session == source.path.stem and not u.subagent), found[0])
    for unit in found:
        try:  # the file's notes (split or cut-off lines) are told once, with its first conversation
            links = task_links(unit, found, calls)
            record = _record(unit, source if unit is found[0] else source._replace(notes=[]), unit is primary, links)
            _note_absent_subagents(record["meta"], links, calls, entries, source)
            yield record
        except LogError as exc:
            yield exc


def _note_absent_subagents(meta: dict[str, Any], links: list[dict[str, Any]], calls: dict[str, str],
                           entries: list[tuple[str, Any]], source: LogSource) -> None:
    """A note for each subagent of Claude Code 2.x whose own log is not beside the session file
    (``<session>/subagents/agent-<id>.jsonl``): its conversation is not imported. The session's
    ``agent_progress`` lines copy its messages for the UI, not what the session's model saw; they
    stay left out (``skipped: progress``) and the note counts them."""
    folder = source.path.with_suffix("") / "subagents"
    copies = Counter(e["data"].get("agentId") for _, e in entries if isinstance(e, Mapping)
                     and e.get("type") == "progress" and isinstance(e.get("data"), Mapping)
                     and e["data"].get("type") == "agent_progress")
    for link in links:
        agent = str(link["conversation"]).rsplit(":", 1)[-1]
        if agent in calls and not (folder / f"agent-{agent}.jsonl").is_file():
            meta.setdefault("notes", []).append(
                f"subagent {agent}'s own log ({folder.parent.name}/subagents/agent-{agent}.jsonl) is not beside this "
                f"file: its conversation is not imported; the {copies[agent]} agent_progress lines that copy its "
                "messages here for the UI are left out")


def convert(lines: Iterable[Line], source: LogSource) -> dict[str, Any]:
    """A file holding one conversation, as one record (`convert_all` reads any number).

    Raises:
        LogError: the file holds another number of conversations, or one that cannot be read.
    """
    records = list(convert_all(lines, source))
    problem = next((r for r in records if isinstance(r, LogError)), None)
    if problem is not None:
        raise problem
    if len(records) != 1:
        raise LogError(f"holds {len(records)} conversations (sessions and subagents); read it with convert_all",
                       source.display)
    record = records[0]
    assert not isinstance(record, LogError)
    return record


def _record(unit: Unit, source: LogSource, primary: bool, links: list[dict[str, Any]]) -> dict[str, Any]:
    """One conversation: a session (reading the compaction agents' logs beside the file when it is
    the file's own session) or a subagent."""
    reader = EntryReader(LogBuilder("claude_code", source), unit.entries)
    agents = reader.load_compaction_logs(source) if primary and not unit.subagent else []
    for n, (where, item) in enumerate(unit.entries):
        reader.history = n < unit.history
        reader.read(where, item)
    for log in agents:
        record_compaction(reader.b, log, reader.produced.get(str(log.cut)))
    reader.finish(unit)
    meta = reader.b.meta
    meta["entries"] = len(unit.entries) - unit.history
    if unit.subagent:
        meta.update(subagent=True, parent={"conversation": unit.session, "tool_call_id": unit.task})
    if links:
        meta["subagents"] = links
    if unit.resumed_from:
        meta["resumed_from"] = unit.resumed_from
        reader.b.repairs.insert(0, f"{unit.entries[unit.history][0]}: session {unit.session} resumes session "
                                   f"{unit.resumed_from}; its conversation starts with that session's "
                                   f"{unit.history} entries up to the one it resumed from (the model saw them; their "
                                   "calls are counted with that session)")
    conv_id = f"{unit.session}:{unit.agent}" if unit.subagent and unit.agent and unit.session else unit.session
    return reader.b.record(conv_id or source.path.stem)


FORMAT = LogFormat("claude_code", "jsonl", (".jsonl",), detect, convert, parent_session, convert_all)
