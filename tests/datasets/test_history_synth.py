"""The user-scale history generator: deterministic, shaped like the long real sessions, and loadable
as ctxlab loads imported agent logs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import ctxlab
from ctxlab.datasets.synth import dumps, generate_history
from ctxlab.datasets.synth.history import COMPACT_AT, session_calls
from ctxlab.datasets.synth.history_shape import REAL_SESSIONS, REAL_SHAPE, history_shape
from ctxlab.metrics.facts import raw_text

REAL = Path(os.environ.get("CTXLAB_REALLOGS") or Path(__file__).resolve().parents[2].parent / "shared" / "reallogs")


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> list:
    path = tmp_path_factory.mktemp("history") / "history.jsonl"
    path.write_text("".join(dumps(r) + "\n" for r in generate_history(12, 2_400)), encoding="utf-8")
    return list(ctxlab.load_conversations(str(path)))


def test_calls_split_exactly_and_deterministically() -> None:
    sizes = session_calls(500, 100_000, seed=7)
    assert sum(sizes) == 100_000 and min(sizes) >= 3
    assert sizes == session_calls(500, 100_000, seed=7) != session_calls(500, 100_000, seed=8)
    # a long tail: the longest session is several times the median one
    assert max(sizes) > 4 * sorted(sizes)[250]
    first = next(generate_history(3, 300, seed=7))
    assert dumps(first) == dumps(next(generate_history(3, 300, seed=7)))


def test_real_shape_is_what_the_real_logs_measure() -> None:
    convs = [c for name in REAL_SESSIONS for c in ctxlab.load_conversations(str(REAL / name))]
    assert history_shape(convs) == REAL_SHAPE


def test_generated_history_has_the_real_shape(history: list) -> None:
    shape = history_shape(history)
    assert (shape.sessions, shape.calls) == (12, 2_400)
    assert 0.6 < shape.chars_per_call / REAL_SHAPE.chars_per_call < 1.5
    assert 0.5 < shape.tool_output_median / REAL_SHAPE.tool_output_median < 2.0
    assert 0.5 < shape.tool_output_p90 / REAL_SHAPE.tool_output_p90 < 2.0
    assert shape.tool_output_max > 20_000  # the long tail of logs
    assert 0.1 < shape.repeated_outputs < 0.4  # files read again, commands run again
    assert 2 < shape.compactions_per_1k_calls < 12
    for tool in ("bash", "edit", "read"):
        assert abs(shape.tool_mix[tool] - REAL_SHAPE.tool_mix[tool]) < 0.1, tool


def test_usage_and_compactions_are_where_an_agent_records_them(history: list) -> None:
    for conv in history:
        calls = conv.meta["provider_calls"]
        assert [c["index"] for c in calls] == [i for i, m in enumerate(conv.messages) if m.role == "assistant"]
        for compaction in conv.meta["compactions"]:
            assert compaction["tokens_before"] > COMPACT_AT
            assert conv.messages[compaction["at"]].role == "assistant"
            assert compaction["summary"].startswith("This session is being continued")
        # right after a compaction the prompt is small again
        after = {c["at"] for c in conv.meta["compactions"]}
        assert all(c["prompt_tokens"] < COMPACT_AT for c in calls if c["index"] in after)


def test_edits_quote_what_earlier_history_showed(history: list) -> None:
    """An edit's old text is a line a read showed, or one the agent itself wrote (an earlier edit or write)."""
    checked = 0
    for conv in history[:4]:
        for t, m in enumerate(conv.messages):
            for call in m.tool_calls:
                if call.name == "Edit":
                    old = json.loads(call.arguments)["old_string"].split("\n")[0]
                    assert any(old in raw_text(e) for e in conv.messages[:t])
                    checked += 1
    assert checked > 50
