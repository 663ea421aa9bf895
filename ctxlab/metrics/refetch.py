"""Observed refetch: what an agent really re-read or re-ran after a compaction.

ctxlab models the cost of losing a string as the tokens of the smallest earlier message holding it
(`ctxlab.metrics.grounded`). An agent log shows what the agent did instead: after its compaction,
the tool calls that fetched again something it had fetched before. A call of the segment is a
*refetch* when, before the compaction's summarized part ended (``messages[:index]``):

- a file-reading tool (``read``, ``view``, ``cat``, ``open``, ``head``, ``tail`` in its name; see
  `ctxlab.summarize.toolcalls`) now reads a path that a tool call there read or modified;
- a shell command is the same command (whitespace-normalized) run there;
- any other reading tool (a search, a listing) is called with the same arguments as there.

Each path, command or search counts once per segment (its first refetch: after it the agent has it
back). Its cost is the tokens of the results answering the call, with a real tokenizer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ctxlab.messages import Message, ToolCall
from ctxlab.summarize.toolcalls import classify
from ctxlab.tokens import TokenCounter

_FILE_READ = re.compile(r"read|view|cat|open|head|tail", re.I)


class Refetch(NamedTuple):
    """One refetching tool call: the assistant message making it, the tool, what it fetched again
    (a path, a command or the search's arguments) and the tokens of its results."""

    call: int
    tool: str
    target: str
    tokens: int


def fetch_keys(call: ToolCall) -> tuple[str, ...]:
    """What a tool call fetched, as keys comparable across calls (empty: it fetched nothing)."""
    info = classify(call)
    if info.kind == "command":
        return (f"$ {' '.join(info.command.split())}",) if info.command else ()
    if info.kind == "modify" or (info.kind == "read" and _FILE_READ.search(call.name)):
        return tuple(f"file {p}" for p in info.paths)
    if info.kind == "read":
        return (f"{call.name} {json.dumps(info.args, sort_keys=True, default=str)}",)
    return ()


def observed_refetches(messages: Sequence[Message], index: int, start: int, stop: int,
                       counter: TokenCounter) -> list[Refetch]:
    """The refetches among the tool calls of assistant messages in ``[start, stop)`` of what tool
    calls in ``messages[:index]`` fetched (see the module docstring)."""
    before = {key for m in messages[:index] for call in m.tool_calls for key in fetch_keys(call)}
    results = _results(messages[start:stop])
    seen: set[str] = set()
    out = []
    for t in range(start, stop):
        for call in messages[t].tool_calls:
            if classify(call).kind == "modify":
                continue  # writing a file fetches nothing
            again = [k for k in fetch_keys(call) if k in before and k not in seen]
            if again:
                seen.update(again)
                tokens = sum(counter.count_message(r) for r in results.get(call.id, ()))
                out.append(Refetch(t, call.name, again[0].split(" ", 1)[1], tokens))
    return out


def _results(messages: Iterable[Message]) -> dict[str, list[Message]]:
    out: dict[str, list[Message]] = {}
    for m in messages:
        if m.role == "tool" and m.tool_call_id:
            out.setdefault(m.tool_call_id, []).append(m)
    return out


__all__ = ["Refetch", "fetch_keys", "observed_refetches"]
