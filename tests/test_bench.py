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


# ---- the live tuner's knob changes (ctxlab.tune.speed) and their lines in `ctxlab bench` ----------------


def test_changes_move_the_knobs_searchable_at_the_window_else_the_window():
    from ctxlab.tune.speed import changes

    small = changes("anthropic_compaction", 8000)  # its trigger starts at 50,000 tokens: nothing to move at 8k
    assert [spec for spec, _ in small] == ["anthropic_compaction"] * 5 and len({w for _, w in small}) == 5
    large = changes("anthropic_compaction", 128_000)
    assert {w for _, w in large} == {128_000} and len({spec for spec, _ in large}) == len(large) > 1
    for policy in ("pi", "openhands", "codex"):
        moved = changes(policy, 8000)
        assert {w for _, w in moved} == {8000} and len(set(moved)) == len(moved) > 1
        assert all(get_strategy(spec).spec.name == policy for spec, _ in moved)
    assert changes("sliding_window", 10_000, n=2) == [("sliding_window", 6000), ("sliding_window", 7000)]


def test_time_policy_times_every_change_and_leaves_nothing_to_store():
    from ctxlab.tune import Sessions
    from ctxlab.tune.speed import changes, time_policy

    sessions = Sessions.load(["sample:agent_sessions"], limit=1)
    t = time_policy(sessions, "codex", 4000, reference="o200k_base", price_model=None, n=3)
    assert t.policy == "codex" and t.changes == len(changes("codex", 4000, 3)) == 3
    assert 0 <= t.median_s <= t.p90_s <= t.max_s and 0 <= t.cpu_median_s <= t.cpu_p90_s


def test_p90_is_the_nearest_rank():
    from ctxlab.tune.speed import p90

    assert p90([5, 1, 4, 2, 3]) == 5 and p90(list(range(1, 11))) == 9 and p90([7.0]) == 7.0


def test_live_lines_give_wall_and_cpu_and_judge_on_cpu():
    from ctxlab.tune.speed import Timing as KnobTiming

    base = bench.Timing("baseline", 0.1, "", cpu=0.2)
    loaded = KnobTiming("pi", 5, 3.0, 4.0, 5.0, 0.5, 0.9)
    line = bench.live_line(loaded, base)
    assert "median 3.00 s wall / 0.50 s CPU, p90 4.00 s / 0.90 s over 5 changes" in line
    assert "30.0x / 2.5x tokenize-once" in line and "meets the 2 s goal on CPU, misses it on wall" in line
    slow = KnobTiming("gssc", 5, 2.5, 3.0, 3.0, 2.4, 2.9)
    assert bench.live_line(slow, base).endswith("misses the 2 s goal on CPU")
    summary = bench.live_summary([loaded, slow])
    assert summary.startswith("  1 of 2 policies meet the 2 s median on CPU (missed: gssc), 0 on wall time")
    assert "load average now" in summary
