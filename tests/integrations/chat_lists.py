"""Hypothesis strategies for OpenAI and Anthropic message lists, and a converter between them.

The lists look like agent sessions: a system prompt, then turns of a user request, assistant
messages with zero to two tool calls each, their results (some long enough to be cut or masked),
and a final answer. OpenAI dicts carry keys ctxlab does not read (``refusal``, ``annotations``),
Anthropic assistant messages may start with a thinking block, so a test can see them survive.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from tests.builders import huge_text, prose

TOOL_NAMES = ("read_file", "grep", "run_tests")
THINK = {"type": "thinking", "thinking": "Plan the next step.", "signature": "sig"}
POLICIES = ("noop", "recommended", "observation_masking:attention_window=2", "pi:trigger_reserve=600,keep_tokens=400",
            "sliding_window", "window_guard:reserve_tokens=200", "compaction",
            "anthropic_context_editing:trigger_tokens=800", "langchain_summarization:keep_messages=4", "codex")


@st.composite
def openai_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An OpenAI Chat Completions history that ends on a user message or tool results."""
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}]
    calls = 0
    for turn in range(draw(st.integers(1, 5))):
        text = prose(draw(st.integers(5, 400)), turn)
        out.append({"role": "user", "content": text} if draw(st.booleans()) else
                   {"role": "user", "content": [{"type": "text", "text": text}]})
        for _ in range(draw(st.integers(0, 3))):
            names = draw(st.lists(st.sampled_from(TOOL_NAMES), min_size=1, max_size=2))
            ids = [f"call_{calls + k}" for k in range(len(names))]
            calls += len(names)
            calls_made = [{"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps({"path": i})}}
                          for i, n in zip(ids, names, strict=True)]
            out.append({"role": "assistant", "content": draw(st.sampled_from(["", None, "Looking."])), "refusal": None,
                        "tool_calls": calls_made})
            for i, n in zip(ids, names, strict=True):
                size = draw(st.sampled_from([40, 900, 6000]))
                out.append({"role": "tool", "tool_call_id": i, "name": n, "content": huge_text(size, head=f"{i}>")})
        if turn < 4 and draw(st.booleans()):
            out.append({"role": "assistant", "content": f"Turn {turn} done.", "annotations": []})
    return out


def to_anthropic(messages: list[dict[str, Any]], *, thinking: bool = False) -> list[dict[str, Any]]:
    """The same history as Anthropic Messages: tool calls as tool_use blocks, results as tool_result
    blocks opening the next user message (with the user's text after them), system prompt first."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] in ("system", "user"):
            text = m["content"] if isinstance(m["content"], str) else m["content"][0]["text"]
            if out and out[-1]["role"] == "user" and m["role"] == "user":
                out[-1]["content"].append({"type": "text", "text": text})
            else:
                content = text if m["role"] == "system" else [{"type": "text", "text": text}]
                out.append({"role": m["role"], "content": content})
        elif m["role"] == "assistant":
            blocks: list[dict[str, Any]] = [THINK] if thinking else []
            blocks += [{"type": "text", "text": m["content"]}] if m.get("content") else []
            blocks += [{"type": "tool_use", "id": c["id"], "name": c["function"]["name"],
                        "input": json.loads(c["function"]["arguments"])} for c in m.get("tool_calls") or ()]
            out.append({"role": "assistant", "content": blocks})
        else:
            result = {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}
            if out[-1]["role"] == "user":
                out[-1]["content"].append(result)
            else:
                out.append({"role": "user", "content": [result]})
    return out


@st.composite
def anthropic_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    """An Anthropic Messages history (from `openai_lists`), some assistant messages thinking first."""
    return to_anthropic(draw(openai_lists()), thinking=draw(st.booleans()))
