"""Which conversations one Claude Code log file holds: its sessions, and its subagents' sidechains.

A file usually holds one session. Older Claude Code (1.0.x) also wrote:
- two sessions in one file, the second a resume of the first: its first entry repeats the entry it
  resumed from (same ``uuid``, new ``sessionId``) and its ``parentUuid`` points into the first
  session, so the model of the second session saw the first one's history (checked on the real
  ``claude_code.jsonl`` of 1.0.95: the second session's first prompt is the first one's last prompt
  plus its last reply). The resumed session's conversation is that history (the ``parentUuid``
  chain back to the root) followed by its own entries;
- the subagents' work (the Task tool) inline, as ``isSidechain`` entries: each subagent's entries
  hang by ``parentUuid`` off a root user entry holding the Task's ``prompt``. Each becomes its own
  conversation, as Claude Code 2.x writes each subagent to its own ``subagents/agent-<id>.jsonl``,
  linked to the Task call that started it (its prompt is that call's ``input.prompt``; 2.x records
  ``toolUseResult.agentId`` on the Task's result).
A file holding only sidechain entries is one subagent's own log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

Entry = tuple[str, Mapping[str, Any]]  # (file:line, the entry)
TASK_TOOLS = ("Task", "Agent")


class Unit(NamedTuple):
    """The entries of one conversation of a file.

    Attributes:
        entries: in file order; a resumed session's history first.
        history: how many leading entries are that history (read, but not this unit's own lines).
        session: the ``sessionId``.
        agent: for a subagent, its ``agentId``, else the Task call that started it, else its root uuid.
        task: the Task tool call that started a subagent (None when unknown, or for a session).
        resumed_from: the session a resumed session continues.
    """

    entries: list[Entry]
    history: int = 0
    session: str | None = None
    agent: str | None = None
    task: str | None = None
    resumed_from: str | None = None

    @property
    def subagent(self) -> bool:
        return self.agent is not None


def units(entries: list[Entry]) -> list[Unit]:
    """The conversations of a file (see the module docstring), sessions first, then subagents."""
    main = [(w, e) for w, e in entries if not e.get("isSidechain")]
    side = [(w, e) for w, e in entries if e.get("isSidechain")]
    if not any(_talks(e) for _, e in main):  # a subagent's own log
        return [Unit(entries, 0, _first(entries, "sessionId"), _first(entries, "agentId") or "")] if side else \
            [Unit(entries, 0, _first(entries, "sessionId"))]
    found = [_resumed(session, own, main) for session, own in _sessions(main).items()]
    tasks, agents = _task_prompts(main), agent_calls(main)
    for group in _sidechains(side):
        agent = _first(group, "agentId")
        task = agents.get(agent) if agent else _take(tasks, _text(group[0][1]))
        found.append(Unit(group, 0, _first(group, "sessionId") or found[0].session,
                          agent or task or str(group[0][1].get("uuid")), task))
    return found


def _first(entries: list[Entry], key: str) -> str | None:
    return next((str(e[key]) for _, e in entries if isinstance(e.get(key), str) and e[key]), None)


def _sessions(main: list[Entry]) -> dict[str | None, list[Entry]]:
    """Main entries by session, in order. Only conversation entries (user, assistant) start a
    session's group; other lines (titles, snapshots, bookkeeping with any sessionId) go with the
    session of the line before them, or the first session for lines before any."""
    groups: dict[str | None, list[Entry]] = {}
    current = next((str(e["sessionId"]) for _, e in main if _talks(e) and e.get("sessionId")), None)
    for where, e in main:
        current = str(e["sessionId"]) if _talks(e) and e.get("sessionId") else current
        groups.setdefault(current, []).append((where, e))
    return groups


def _talks(e: Mapping[str, Any]) -> bool:
    return e.get("type") in ("user", "assistant")


def _resumed(session: str | None, own: list[Entry], main: list[Entry]) -> Unit:
    """A session whose first conversation entry hangs off another session of the file: that
    session's history (its parentUuid chain) first."""
    start = next((e for _, e in own if _talks(e)), None)
    mine = {id(e) for _, e in own}
    others: dict[Any, tuple[int, Entry]] = {}
    for n, (where, e) in enumerate(main):
        if id(e) not in mine and e.get("uuid") is not None:
            others.setdefault(e["uuid"], (n, (where, e)))
    chain: list[tuple[int, Entry]] = []
    parent = start.get("parentUuid") if start is not None else None
    while parent in others and len(chain) < len(others):
        chain.append(others[parent])
        parent = others[parent][1][1].get("parentUuid")
    if not chain:
        return Unit(own, 0, session)
    history = [entry for _, entry in sorted(chain, key=lambda c: c[0])]
    return Unit(history + own, len(history), session, resumed_from=_first(history, "sessionId"))


def _sidechains(side: list[Entry]) -> list[list[Entry]]:
    """Sidechain entries grouped by subagent: by agentId where lines carry one, else by the root
    their parentUuid chain leads to; groups in the order their first lines appear."""
    by_uuid = {e.get("uuid"): e for _, e in side if e.get("uuid") is not None}
    roots: dict[Any, Any] = {}

    def root(e: Mapping[str, Any]) -> Any:
        seen: list[Any] = []
        while e.get("parentUuid") in by_uuid and e.get("uuid") not in roots and len(seen) <= len(by_uuid):
            seen.append(e.get("uuid"))
            e = by_uuid[e["parentUuid"]]
        top = roots.get(e.get("uuid"), e.get("uuid") if e.get("uuid") is not None else id(e))
        roots.update(dict.fromkeys(seen, top))
        return top

    groups: dict[Any, list[Entry]] = {}
    for where, e in side:
        groups.setdefault(e.get("agentId") or root(e), []).append((where, e))
    return list(groups.values())


def _task_prompts(main: list[Entry]) -> dict[str, list[str]]:
    """The Task calls of the main entries by prompt: their tool_use ids, in order."""
    found: dict[str, list[str]] = {}
    for _, e in main:
        for block in _blocks(e) if e.get("type") == "assistant" else ():
            prompt = block.get("input", {}).get("prompt") if isinstance(block.get("input"), Mapping) else None
            if block.get("type") == "tool_use" and block.get("name") in TASK_TOOLS and isinstance(prompt, str):
                ids = found.setdefault(prompt.strip(), [])
                if block.get("id") not in ids:  # a streamed response repeats its blocks
                    ids.append(str(block.get("id")))
    return found


def agent_calls(entries: list[Entry]) -> dict[str, str]:
    """``agentId`` -> the Task call it answered (2.x records it on the Task's result)."""
    found: dict[str, str] = {}
    for _, e in entries:
        if e.get("isSidechain"):
            continue
        result = e.get("toolUseResult")
        agent = result.get("agentId") if isinstance(result, Mapping) else None
        call = next(iter(_result_ids(e)), None)
        if isinstance(agent, str) and isinstance(call, str):
            found.setdefault(agent, call)
    return found


def task_links(unit: Unit, found: list[Unit], calls: dict[str, str]) -> list[dict[str, Any]]:
    """What a session's meta says of its subagents: each one's conversation id and Task call, for
    those in this file and those whose own log 2.x names on the Task's result (``agentId``)."""
    if unit.subagent:
        return []
    inline = [{"conversation": f"{u.session}:{u.agent}", "tool_call_id": u.task} for u in found
              if u.subagent and u.session == unit.session]
    known = {link["conversation"] for link in inline}
    own = {c for _, e in unit.entries[unit.history:] for c in _result_ids(e)}
    return inline + [{"conversation": f"{unit.session}:{agent}", "tool_call_id": call} for agent, call in calls.items()
                     if call in own and f"{unit.session}:{agent}" not in known]


def _result_ids(e: Mapping[str, Any]) -> list[str]:
    return [str(b.get("tool_use_id")) for b in _blocks(e) if b.get("type") == "tool_result"]


def _take(tasks: dict[str, list[str]], prompt: str | None) -> str | None:
    ids = tasks.get((prompt or "").strip())
    return ids.pop(0) if ids else None


def _text(e: Mapping[str, Any]) -> str | None:
    content = e.get("message", {}).get("content") if isinstance(e.get("message"), Mapping) else None
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in _blocks(e) if b.get("type") == "text" and isinstance(b.get("text"), str))


def _blocks(e: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = e.get("message", {}).get("content") if isinstance(e.get("message"), Mapping) else None
    return [b for b in content if isinstance(b, Mapping)] if isinstance(content, list) else []
