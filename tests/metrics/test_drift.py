"""Drift: an agent run forward through a strategy, results carried from call to call."""

from __future__ import annotations

import json

import pytest

from ctxlab.messages import Conversation, Message, ToolCall
from ctxlab.metrics.drift import call_points, drift, simulate
from ctxlab.strategies import get_strategy
from tests.builders import huge_text


def long_session(rounds: int = 12) -> Conversation:
    msgs = [Message("system", "You are a coding agent.", id="sys")]
    facts = []
    for t in range(rounds):
        facts.append({"fact": f"src/pkg_{t}/mod.py", "kind": "path", "message_index": len(msgs)})
        msgs += [Message("user", f"Round {t}: fix src/pkg_{t}/mod.py, the limit must stay {t + 10} MB.", id=f"u{t}"),
                 Message("assistant", f"Decision: I'll patch handler_{t}() first.", id=f"a{t}", tool_calls=(
                     ToolCall(f"c{t}", "read_file", json.dumps({"path": f"src/pkg_{t}/mod.py"})),)),
                 Message("tool", huge_text(2500, f"T{t}>"), id=f"t{t}", tool_call_id=f"c{t}"),
                 Message("assistant", f"Fixed handler_{t}(); 8 passed.", id=f"d{t}")]
    return Conversation("long", tuple(msgs), meta={"facts_detail": facts})


def test_call_points() -> None:
    msgs = long_session(2).messages
    assert call_points(msgs) == [2, 4, 6, 8, 9]
    assert call_points(msgs, "user_turns") == [2, 6, 9]
    with pytest.raises(ValueError):
        call_points(msgs, "sometimes")


def test_simulate_carries_results_forward() -> None:
    conv = long_session()
    steps, final = simulate(conv, "compaction", 2500)
    assert [s.upto for s in steps] == call_points(conv.messages)
    assert steps[-1].cycle >= 2 and all(s.fits for s in steps)
    summaries = [m for m in final.messages if m.mark == "summary"]
    assert len(summaries) == 1 and "u0" in summaries[0].source_ids  # traced back through merges
    assert steps[-1].recall == 1.0  # every file path survives repeated merges


def test_drift_report() -> None:
    conv = long_session()
    report = drift([conv], get_strategy("compaction"), 2500)
    assert len(report.steps) == len(call_points(conv.messages))
    assert list(report.by_cycle.columns) == ["cycle", "conversations", "recall"]
    assert report.by_cycle["cycle"].tolist() == sorted(set(report.steps.loc[report.steps["compacted"], "cycle"]))
    assert report.by_position["decile"].tolist() == list(range(10))
    assert report.by_position["facts"].sum() == 12
    window = drift([conv], "sliding_window", 2500)
    assert window.by_position["recall"].iloc[0] < report.by_position["recall"].iloc[0]
