"""The shape of an agent history, measured the same way on real logs and on a generated history.

`history_shape` takes loaded conversations (ctxlab's import of real logs, or the records of
`generate_history` read back) and returns the figures the generator is built to match: provider
calls per session, characters per call, the sizes of tool outputs, how many tool outputs repeat an
earlier one of the same session (files read again, the same command run again), how often the agent
compacted, and the tool mix. `REAL_SHAPE` holds them for the three long real sessions (Claude Code
4d5611e5 and fa812bfe, pi 5fd1e58c: 511 calls), measured with this function on 2026-11-26;
tests/datasets check both the constants against the logs and a generated history against them.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from ctxlab.messages import Conversation


class Shape(NamedTuple):
    """What a history looks like (see the module docstring)."""

    sessions: int
    calls: int
    chars_per_call: float
    tool_output_median: float
    tool_output_p90: float
    tool_output_max: int
    repeated_outputs: float  # share of tool outputs equal to an earlier one in the same session
    compactions_per_1k_calls: float
    tool_mix: dict[str, float]  # share of tool calls by tool name (lower case)


REAL_SHAPE = Shape(sessions=3, calls=511, chars_per_call=3_025.5, tool_output_median=207.5, tool_output_p90=5_979.0,
                   tool_output_max=51_247, repeated_outputs=0.203, compactions_per_1k_calls=5.9,
                   tool_mix={"bash": 0.481, "edit": 0.233, "read": 0.175, "grep": 0.041, "write": 0.037,
                             "glob": 0.021, "task": 0.006, "taskoutput": 0.004, "askuserquestion": 0.002})
# The three long real sessions, as paths under ``../shared/reallogs``.
REAL_SESSIONS = ("claude_code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl",
                 "claude_code/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl", "pi/session.jsonl")


def history_shape(conversations: Iterable[Conversation]) -> Shape:
    """The `Shape` of `conversations` (each a session with its full history)."""
    sessions = calls = chars = compactions = repeated = 0
    outputs: list[int] = []
    tools: Counter[str] = Counter()
    for conv in conversations:
        sessions += 1
        calls += sum(1 for i, m in enumerate(conv.messages) if m.role == "assistant" and i > 0)
        chars += sum(len(m.text) + sum(len(c.arguments) for c in m.tool_calls) for m in conv.messages)
        compactions += len((conv.meta or {}).get("compactions") or ())
        seen: set[str] = set()
        for m in conv.messages:
            tools.update(c.name.lower() for c in m.tool_calls)
            if m.role == "tool":
                outputs.append(len(m.text))
                repeated += m.text in seen
                seen.add(m.text)
    ordered = sorted(outputs) or [0]
    total_tools = sum(tools.values()) or 1
    return Shape(sessions, calls, round(chars / max(calls, 1), 1), float(statistics.median(ordered)),
                 float(ordered[int(0.9 * (len(ordered) - 1))]), ordered[-1], round(repeated / max(len(outputs), 1), 3),
                 round(1000 * compactions / max(calls, 1), 1),
                 {name: round(n / total_tools, 3) for name, n in tools.most_common()})


__all__ = ["REAL_SESSIONS", "REAL_SHAPE", "Shape", "history_shape"]
