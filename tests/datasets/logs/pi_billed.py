"""Hand-written pi sessions billed by a known rule, with turns pi never resent.

    lines = pi_session(seed=3, rounds=40)          # JSONL entries of one pi session
    write_session(tmp_path / "s.jsonl", lines)

The conversation comes from `tests.provider_logs` (prose, Chinese, code, JSON, parallel calls) and
every assistant message is one call billed like `tests.provider_logs.billed_log`: o200k_base text
tokens + `FRAMING` per message behind a hidden system prompt, counted over what pi *sent*. Every
`errored_every` rounds an assistant turn fails mid-stream (``stopReason: "error"``) while writing a
large file: its call reports its prompt, or no tokens at all when the stream failed early; like pi,
the bill of every later prompt leaves that turn out, so an import that kept it would see deltas far
smaller than their messages.
"""

from __future__ import annotations

import datetime
import json
import random
from pathlib import Path
from typing import Any

from ctxlab.messages import Message, ToolCall
from tests.provider_logs import HIDDEN_SYSTEM, MODEL, _messages, true_tokens

START = datetime.datetime(2025, 11, 20, 9, 0, tzinfo=datetime.UTC)
BIG_WRITE = "export const table = [\n" + "".join(f"  {{ id: {i}, name: 'row {i}', ok: {i % 2 == 0} }},\n"
                                                   for i in range(400)) + "];\n"


def pi_session(seed: int, rounds: int = 40, errored_every: int = 7) -> list[dict[str, Any]]:
    """The entries of one session (header first); see the module docstring."""
    rng = random.Random(seed)
    sent: list[Message] = []
    entries: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": f"pi-billed-{seed}",
                                      "timestamp": _when(0), "cwd": "/work/calc"}]
    turns = 0
    for n, message in enumerate(_messages(rng, rounds)):
        message = _compact(message)
        turns += message.role == "assistant" and bool(message.tool_calls)
        if message.role == "assistant" and message.tool_calls and turns % errored_every == 0:
            # A stream that fails early reports no tokens; one that fails late reports its prompt.
            usage = _usage(sent) if turns % (2 * errored_every) else dict.fromkeys(_usage(sent), 0)
            entries.append(_entry(entries, _failed_write(n), usage, "error"))
        entries.append(_entry(entries, message, _usage(sent) if message.role == "assistant" else None))
        sent.append(message)
    return entries


def write_session(path: Path, entries: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8")
    return path


def _compact(message: Message) -> Message:
    """The message as the importer rebuilds it (pi stores arguments as objects: compact JSON)."""
    calls = tuple(ToolCall(c.id, c.name, json.dumps(json.loads(c.arguments), separators=(",", ":")))
                  for c in message.tool_calls)
    return Message(role=message.role, content=message.content, id=message.id, tool_calls=calls,
                   tool_call_id=message.tool_call_id)


def _failed_write(n: int) -> Message:
    call = ToolCall(f"failed_{n}", "write", json.dumps({"path": f"src/table_{n}.ts", "content": BIG_WRITE}))
    return Message(role="assistant", content="Writing the generated table now.", id=f"failed{n}", tool_calls=(call,))


def _usage(sent: list[Message]) -> dict[str, int]:
    prompt = HIDDEN_SYSTEM + sum(true_tokens(m) for m in sent)
    return {"input": prompt // 10, "output": 50, "cacheRead": prompt - prompt // 10, "cacheWrite": 0}


def _entry(entries: list[dict[str, Any]], message: Message, usage: dict | None, stop: str | None = None
           ) -> dict[str, Any]:
    n = len(entries)
    body: dict[str, Any] = {"role": {"tool": "toolResult"}.get(message.role, message.role)}
    if message.role == "tool":
        body.update(toolCallId=message.tool_call_id, toolName="read", isError=False,
                    content=[{"type": "text", "text": message.text}])
    elif message.role == "user":
        body["content"] = [{"type": "text", "text": message.text}]
    else:
        blocks = [{"type": "text", "text": message.text}] if message.text else []
        blocks += [{"type": "toolCall", "id": c.id, "name": c.name, "arguments": json.loads(c.arguments)}
                   for c in message.tool_calls]
        body.update(content=blocks, api="anthropic-messages", provider="anthropic", model=MODEL, usage=usage,
                    stopReason=stop or ("toolUse" if message.tool_calls else "stop"))
    parent = entries[-1]["id"] if n > 1 else None
    return {"type": "message", "id": f"e{n:05d}", "parentId": parent, "timestamp": _when(n), "message": body}


def _when(n: int) -> str:
    return (START + datetime.timedelta(seconds=20 * n)).isoformat().replace("+00:00", "Z")
