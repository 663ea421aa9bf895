"""Agent logs whose provider counts follow a known rule, for the delta-method tests.

    from tests.provider_logs import billed_log, true_tokens
    conversation = billed_log(0)

    logs_db  # the session fixture (a replay of such logs), registered in tests/conftest.py

The "provider" bills each message as its o200k_base text tokens (content, tool-call names and
arguments) plus `FRAMING` tokens, and every prompt also carries a `HIDDEN_SYSTEM`-token system
prompt the log never shows. Conversations are deterministic for a seed and mix prose, Chinese,
code, JSON and parallel tool calls, so a fit sees varied text and varied message counts.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.tokens import get_counter
from tests.builders import cjk_text, huge_text, prose

FRAMING = 7
HIDDEN_SYSTEM = 500
MODEL = "claude-sonnet-4-5"
CODE = "def handler(request):\n    if request.user is None:\n        raise PermissionError('login')\n    return 42\n"


def true_tokens(message: Message) -> int:
    """What the constructed provider bills for one message."""
    o200k = get_counter("o200k_base")
    text = sum(o200k.count(p) for p in message.parts)
    return text + sum(o200k.count(c.name) + o200k.count(c.arguments) for c in message.tool_calls) + FRAMING


def _tool_output(rng: random.Random, n: int) -> str:
    kind = rng.choice(("code", "json", "log", "cjk"))
    if kind == "code":
        return CODE * rng.randint(1, 12)
    if kind == "json":
        return json.dumps([{"id": i, "path": f"src/mod_{i}.py", "ok": i % 3 == 0} for i in range(rng.randint(1, 30))],
                          indent=rng.choice((None, 2)))
    if kind == "log":
        return huge_text(rng.randint(40, 3000), head=f"run {n}>", tail="<done")
    return cjk_text(rng.randint(5, 400))


def _messages(rng: random.Random, rounds: int) -> list[Message]:
    msgs = [Message(role="user", content="Fix the failing build in src/app.py.", id="m0")]
    for r in range(rounds):
        calls = tuple(ToolCall(f"c{r}_{k}", rng.choice(("read_file", "bash", "grep")),
                               json.dumps({"path": f"src/file_{r}_{k}.py", "limit": rng.randint(1, 999)}))
                      for k in range(rng.randint(1, 3)))
        msgs.append(Message(role="assistant", content=prose(rng.randint(0, 120), r) or None, id=f"m{len(msgs)}",
                            tool_calls=calls))
        msgs += [Message(role="tool", content=_tool_output(rng, r), id=f"m{len(msgs) + i}", tool_call_id=c.id)
                 for i, c in enumerate(calls)]
        if rng.random() < 0.5:
            answer = prose(rng.randint(3, 600), r + 3) if rng.random() < 0.7 else cjk_text(rng.randint(3, 200))
            msgs.append(Message(role="assistant", content=answer, id=f"m{len(msgs)}"))
            msgs.append(Message(role="user", content=prose(rng.randint(2, 300), r + 5), id=f"m{len(msgs)}"))
    return msgs


def calls_for(messages: Sequence[Message], *, model: str = MODEL, hidden: int = HIDDEN_SYSTEM,
              start: int = 0, base: int = 0) -> list[dict]:
    """One provider call per assistant message at or after `start`, billed by the known rule on
    ``messages[start:index]`` plus `base` (a compaction summary) and the hidden system prompt."""
    out = []
    for i in range(max(start, 1), len(messages)):
        if messages[i].role == "assistant":
            prompt = hidden + base + sum(true_tokens(m) for m in messages[start:i])
            out.append({"index": i, "model": model, "prompt_tokens": prompt, "output_tokens": 50,
                        "input_tokens": prompt // 10, "cache_read_tokens": prompt - prompt // 10 - 5,
                        "cache_write_tokens": 5})
    return out


def billed_log(seed: int, rounds: int = 10, *, hidden: int = HIDDEN_SYSTEM, meta: dict | None = None) -> Conversation:
    """A log whose every assistant message is a call billed by the known rule."""
    rng = random.Random(seed)
    messages = _messages(rng, rounds)
    extra = dict(meta or {})
    return Conversation(f"log-{seed}", tuple(messages),
                        meta={"format": "claude_code", "model": MODEL,
                              "provider_calls": calls_for(messages, hidden=hidden), **extra})


def opaque_thinking_log(seed: int) -> Conversation:
    """A billed log of an API that resends thinking as opaque pieces (Gemini's thought signatures):
    every assistant message with tool calls thought `size` tokens, recorded only as a count, and
    every later prompt carries them."""
    log = billed_log(seed)
    sizes = {m.id: 40 + 97 * i % 900 for i, m in enumerate(log.messages) if m.tool_calls}
    calls = calls_for(log.messages, model="gemini-2.5-pro")
    for call in calls:
        call["prompt_tokens"] += sum(sizes.get(m.id, 0) for m in log.messages[:call["index"]])
    thinking = [{"message_id": k, "text": "Planning\nRead the file.", "call_thoughts_tokens": v} for k, v in sizes.items()]
    return Conversation(log.id, log.messages, meta={"provider_calls": calls, "thinking": thinking})


def agent_summary(messages: Sequence[Message]) -> str:
    """A plausible agent summary of `messages` (a few hundred tokens, like a real one): the goal,
    each tool call it made, and where the work stands."""
    steps = [f"- {c.name} {json.loads(c.arguments)['path']} (limit {json.loads(c.arguments)['limit']}): "
             "inspected it while tracing the failing build." for m in messages for c in m.tool_calls]
    return ("## Summary of the session so far\nGoal: fix the failing build in src/app.py.\n## Steps\n"
            + "\n".join(steps) + "\n## State\nThe handler raises PermissionError when the user is missing; the "
            "fix is to return 42 for anonymous requests, then rerun the test suite and check the build again.")


def compacted_log(seed: int, rounds: int = 12, summary: str | None = None, keep: int = 0) -> Conversation:
    """A billed log whose agent compacted at `at` (the first user message past the middle),
    replacing ``messages[:at - keep]`` by a summary and keeping the `keep` messages before `at`
    (Claude Code keeps none, pi some); calls from `at` on are billed on the summary plus what
    followed it."""
    plain = billed_log(seed, rounds)
    msgs = plain.messages
    at = next(i for i in range(len(msgs) // 2, len(msgs)) if msgs[i].role == "user")
    index = at - keep
    text = summary if summary is not None else agent_summary(msgs[:index])
    before = [c for c in plain.meta["provider_calls"] if c["index"] < at]
    after = [c for c in calls_for(msgs, start=index, base=true_tokens(Message(role="user", content=text)))
             if c["index"] >= at]
    compaction = {"index": index, "at": at, "summary": text, "tokens_before": before[-1]["prompt_tokens"]}
    return Conversation(plain.id, msgs, meta={**plain.meta, "provider_calls": before + after,
                                              "compactions": [compaction]})


def write_logs(path: Path, conversations: Sequence[Conversation]) -> str:
    """The conversations as a JSONL file of records (what the log importers yield)."""
    path.write_text("".join(json.dumps(c.to_record(), ensure_ascii=False) + "\n" for c in conversations),
                    encoding="utf-8")
    return str(path)


def build_logs_db(folder: Path) -> str:
    """Replay two plain and two compacted billed logs into ``folder/logs.duckdb`` (in process)."""
    from ctxlab.replay import ReplayConfig, replay

    source = write_logs(folder / "agent_logs.jsonl", [billed_log(0), billed_log(1), compacted_log(2), compacted_log(3)])
    db = folder / "logs.duckdb"
    replay(ReplayConfig([source], ["sliding_window", "compaction"], [4000], references=["o200k_base"], db=str(db), workers=0,
           name="logs"))
    return str(db)


@pytest.fixture(scope="session")
def logs_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`build_logs_db` once per test session (per xdist worker): read it only."""
    return Path(build_logs_db(tmp_path_factory.mktemp("logs-db")))
