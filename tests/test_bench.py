"""Bench logic on a tiny input (no timing is asserted)."""

from __future__ import annotations

from ctxlab import bench
from ctxlab.datasets import load_conversations
from ctxlab.replay.plan import turn_indices
from ctxlab.strategies import get_strategy, list_strategies


def test_deterministic_strategies_exclude_llm_specs():
    names = bench.deterministic_strategies()
    assert "noop" in names and set(names) <= set(list_strategies())
    assert get_strategy("compaction:summarizer=llm").spec.uses_llm()
    assert get_strategy("pipeline:steps=observation_masking+compaction:summarizer=llm").spec.uses_llm()
    assert not get_strategy("compaction").spec.uses_llm()


def test_baseline_and_peer_on_a_tiny_workload():
    convs = list(load_conversations("sample:chats", limit=2))
    messages = list(dict.fromkeys(m for c in convs for m in c.messages))
    base = bench.baseline(messages)
    assert base.seconds >= 0 and f"{len(messages):,} distinct messages" in base.detail
    lc, cx = bench.peer([(c, turn_indices(c)) for c in convs], windows=(500,))
    assert lc.seconds > 0 and cx.seconds > 0


def test_langchain_counter_matches_ctxlab_overhead():
    from ctxlab.tokens import get_counter
    from ctxlab.tokens.exact import load_tiktoken

    conv = next(load_conversations("sample:agent_sessions", limit=1))
    count = bench._langchain_counter(load_tiktoken("o200k_base"))
    msgs = [m for m in conv.messages if m.role in ("system", "user") or (m.role == "assistant" and not m.tool_calls)]
    assert count(bench._to_langchain(msgs)) == get_counter("o200k_base").count_messages(msgs)


def test_timed_replay_writes_a_fresh_database(tmp_path):
    t = bench.timed_replay("tiny", tmp_path, ["sample:chats"], "final", workers=0, full=False, limit=2)
    assert t.seconds > 0 and "2 conversations" in t.detail and (tmp_path / "tiny.duckdb").exists()


def test_timed_replay_of_named_strategies_only(tmp_path):
    from ctxlab import store

    bench.timed_replay("floor", tmp_path, ["sample:chats"], "final", workers=0, full=False, limit=2,
                       strategies=["noop"])
    with store.reading(tmp_path / "floor.duckdb") as con:
        assert con.execute("SELECT DISTINCT strategy FROM results").fetchall() == [("noop",)]


def test_timed_replay_counts_the_cpu_of_its_workers_and_the_grounded_line_compares_it(tmp_path):
    plain = bench.timed_replay("core", tmp_path, ["sample:agent_sessions"], "per-turn", workers=1, full=False, limit=2,
                               strategies=["noop"], grounded=False)
    assert plain.cpu > 0
    line = bench._grounded(plain, tmp_path, 1, ["sample:agent_sessions"], limit=2, strategies=["noop"])
    assert "x the core replay's wall time" in line and "x its CPU" in line and "1.3x goal" in line
