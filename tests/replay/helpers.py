"""Builders for replay tests: small JSONL inputs and fake strategies (registered by a fixture)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ctxlab.messages import Message
from ctxlab.strategies import BaseStrategy, Plan, Request
from ctxlab.strategies.mechanics import newest_user, system_prefix


def agent_record(i: int, rounds: int = 3) -> dict:
    """A small agent conversation: system, then rounds of user -> tool call -> result -> answer."""
    msgs = [{"role": "system", "content": "You are a coding agent."}]
    for r in range(rounds):
        call = f"call_{i}_{r}"
        msgs += [{"role": "user", "content": f"Fix bug {r} in src/app_{i}.py " + "please look " * 30},
                 {"role": "assistant", "content": None, "tool_calls": [
                     {"id": call, "type": "function", "function": {"name": "read_file",
                                                                   "arguments": json.dumps({"path": f"src/app_{i}.py"})}}]},
                 {"role": "tool", "tool_call_id": call, "content": "def handler():\n    return 42\n" * 40},
                 {"role": "assistant", "content": f"Fixed ERR_{r}: changed src/app_{i}.py line {r + 10}."}]
    return {"id": f"conv-{i}", "messages": msgs, "meta": {"facts": [f"src/app_{i}.py"]}}


def write_jsonl(path: Path, records: list) -> str:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return str(path)


@dataclass(frozen=True)
class Stateful(BaseStrategy):
    """Summarizes everything before the newest user turn into one summary message whose text
    counts how many summaries it has merged, so a test can see state carried across turns."""

    def plan(self, request: Request) -> Plan:
        msgs = request.messages
        head = system_prefix(msgs)
        start = newest_user(msgs)
        start = head if start is None else start
        previous = [m for m in msgs if m.mark == "summary"]
        n = int(previous[-1].text.split("#")[1]) + 1 if previous else 1
        folded = msgs[head:start]
        if not folded:
            return Plan(msgs)
        summary = Message(role="user", content=f"summary#{n}", id=f"summary-{n}", mark="summary",
                          source_ids=tuple(m.id for m in folded))
        return Plan((*msgs[:head], summary, *msgs[start:]), summary=summary.text)


@dataclass(frozen=True)
class Exploding(BaseStrategy):
    """Fails on every conversation, to check failures become error rows."""

    def plan(self, request: Request) -> Plan:
        raise RuntimeError("boom")


SEEN: list[int] = []  # per call of `Spy`: the newest original message index it was handed


@dataclass(frozen=True)
class Spy(BaseStrategy):
    """Keeps everything and records the newest original message (ids ``m<i>``) each call saw."""

    def plan(self, request: Request) -> Plan:
        SEEN.append(max(int(m.id[1:]) for m in request.messages if m.id[:1] == "m" and m.id[1:].isdigit()))
        return Plan(request.messages)
