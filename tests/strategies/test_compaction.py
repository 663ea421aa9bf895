"""`compaction`: seed 001's trigger and layout, pi-mono's cut points, split turns and incremental
summaries, the fallbacks, the LLM path (fake endpoint) and the acceptance on the bundled sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation, Message, ToolCall, validate_messages
from ctxlab.strategies import StrategySpec, get_strategy, strategy_params
from ctxlab.strategies.mechanics import Usage
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.message import SUMMARY_HEADER, TURN_CONTEXT, unwrap
from ctxlab.summarize.sections import DETAILS, MODIFIED, parse_summary
from ctxlab.tokens import get_counter
from tests.builders import huge_text, prose
from tests.summarize.fake_openai import FakeOpenAI

O200K = get_counter("o200k_base")
DATA = Path(__file__).resolve().parents[2] / "data" / "agent_sessions.jsonl"


def session(turns: int = 6, output_chars: int = 3000) -> tuple[Message, ...]:
    """System, then `turns` rounds of: request, a read and an edit with outputs, a status reply."""
    msgs = [Message("system", "You are a coding agent.", id="sys")]
    for t in range(turns):
        calls = (ToolCall(f"r{t}", "read_file", json.dumps({"path": f"src/mod_{t}.py"})),
                 ToolCall(f"e{t}", "edit_file", json.dumps({"path": f"src/mod_{t}.py", "old_string": "a",
                                                            "new_string": "b"})))
        msgs += [Message("user", f"Task {t}: fix the bug in src/mod_{t}.py. You must keep the API stable.", id=f"u{t}"),
                 Message("assistant", f"Decision: I'll patch helper_{t}() in place.", id=f"a{t}", tool_calls=calls),
                 Message("tool", huge_text(output_chars, f"R{t}>"), id=f"tr{t}", tool_call_id=f"r{t}"),
                 Message("tool", "ok", id=f"te{t}", tool_call_id=f"e{t}"),
                 Message("assistant", f"Fixed helper_{t}(); 12 passed in 0.{t}s.", id=f"d{t}")]
    return tuple(msgs)


def compact(messages, budget, name="compaction", **params):
    return get_strategy(name, **params).compress(messages, budget, counter="o200k_base")


def event(result, name="context_compacted"):
    return next(e.payload for e in result.events if e.name == name)


def test_below_the_trigger_nothing_changes() -> None:
    msgs = session(2)
    total = O200K.count_messages(msgs)
    r = compact(msgs, int(total / 0.8) + 10)
    assert r.messages == msgs and r.dropped_ids == () and r.summary is None and r.events == ()


def test_compacts_to_system_summary_and_recent_rounds() -> None:
    msgs = session(6)
    r = compact(msgs, 5000)
    assert r.fits and r.tokens_after <= 5000
    system, summary, *rest = r.messages
    assert system == msgs[0]
    assert summary.mark == "summary" and summary.role == "user"
    assert summary.text.startswith(SUMMARY_HEADER) and unwrap(summary.text) == r.summary
    assert [m.id for m in rest] == [m.id for m in msgs[21:]]  # the last two rounds, verbatim
    assert rest == list(msgs[21:])
    assert set(summary.source_ids) == set(r.dropped_ids) == {m.id for m in msgs[1:21]}
    sections = parse_summary(r.summary)
    assert sections[MODIFIED] == [f"src/mod_{t}.py" for t in range(4)]
    payload = event(r)
    assert payload["original_tokens"] == r.tokens_before and payload["new_tokens"] == r.tokens_after
    assert payload["compacted_count"] == 4 and payload["compacted_messages"] == 20
    assert payload["saved_ratio"] == pytest.approx(1 - r.tokens_after / r.tokens_before)
    assert payload["summary"] == r.summary and payload["attempts"] == 1 and payload["fallback"] is None
    assert payload["summarizer"] == "extractive" and payload["summarizer_cost_usd"] == 0.0


def test_trigger_is_eighty_percent_of_the_budget() -> None:
    msgs = session(3)
    total = O200K.count_messages(msgs)
    assert compact(msgs, int(total / 0.8) - 5).summary is not None  # total >= 0.8 x budget
    assert compact(msgs, int(total / 0.8) + 5).summary is None
    assert compact(msgs, total + 1, trigger_ratio=1.0).summary is None


def budget_with_a_fractional_trigger(total: int) -> int:
    """A budget whose ``0.8 * budget`` lies strictly between `total` and ``total + 1``."""
    return next(b for b in range(int(total / 0.8) - 2, int(total / 0.8) + 4) if total < b * 0.8 < total + 1)


@pytest.mark.parametrize("name", ["compaction", "compaction_seed001"])
def test_trigger_is_int_of_max_times_ratio_and_the_event_agrees(name: str) -> None:
    """Issue 16, item 3. Seed 001: ``self.trigger_threshold = int(max_tokens * trigger_ratio)`` and
    ``should_compact``: ``return current_tokens >= self.trigger_threshold``. At a budget whose 0.8 x
    budget is fractional, a request of exactly int(0.8 x budget) tokens compacts (the unrounded
    comparison did not), and the event's trigger_tokens is the threshold that was checked."""
    msgs = session(3)
    total = O200K.count_messages(msgs)
    budget = budget_with_a_fractional_trigger(total)
    r = get_strategy(name).compress(msgs, budget, counter="o200k_base")
    assert r.summary is not None
    assert event(r)["trigger_tokens"] == int(budget * 0.8) == total
    assert get_strategy(name).compress(msgs, budget + 2, counter="o200k_base").summary is None


def test_compaction_seed001_is_the_seed_as_written() -> None:
    """Issue 16, item 3. Seed 001's config: ``trigger_ratio: 0.8``, ``keep_recent_rounds: 2``,
    ``require_confirmation: true``, ``summary_max_length: 1000 # 摘要最大长度（字符）``, its
    ``SUMMARY_PROMPT`` and its ``len(text) // 2`` (+4 per message) estimate. Offline the extractive
    summarizer keeps whole items within the 1000 characters; the confirmation is asked with the
    seed's own question, and the replay answers yes."""
    params = strategy_params("compaction_seed001")
    assert {k: params[k] for k in ("trigger_ratio", "keep_recent_rounds", "prompt", "summary_max_chars",
                                   "confirm", "summarizer")} == {
        "trigger_ratio": 0.8, "keep_recent_rounds": 2, "prompt": "seed001", "summary_max_chars": 1000,
        "confirm": "yes", "summarizer": "extractive"}
    strategy = get_strategy("compaction_seed001")
    assert type(strategy).seed_counter == "chars2" and strategy.engine.name == "extractive"
    msgs = session(12)
    r = strategy.compress(msgs, 8000, counter="chars2")
    uncapped = get_strategy("compaction").compress(msgs, 8000, counter="chars2")
    assert len(uncapped.summary) > 1000 >= len(r.summary) > 500
    items = {(k, item) for k, v in parse_summary(uncapped.summary).items() for item in v}
    # whole items, none cut; items are compared, not lines, as details share lines (and a detail
    # the uncapped summary's longer lines already hold is not listed there on its own)
    assert all((k, item) in items for k, v in parse_summary(r.summary).items() if k != DETAILS for item in v)
    payload = event(r)
    assert payload["confirmation"] == {"answer": "yes", "question": (
        f"上下文即将达到上限 ({r.tokens_before}/8000 tokens)。\n建议压缩对话历史，保留关键信息。\n是否同意压缩？")}
    assert event(uncapped)["confirmation"] is None  # `compaction` does not ask


def test_compaction_seed001_replays_a_refusal() -> None:
    """Seed 001, 用户确认: ``if not confirmation: return`` and 情况 2 (用户拒绝压缩): 删除最旧的消息."""
    r = get_strategy("compaction_seed001:confirm=no").compress(session(6), 5000, counter="o200k_base")
    declined = event(r, "compaction_declined")
    assert r.summary is None and declined["fallback"] == "window" and declined["confirmation"]["answer"] == "no"
    with pytest.raises(CtxlabError, match="confirm must be"):
        get_strategy("compaction_seed001", confirm="maybe")


def test_more_recent_rounds_or_a_token_target() -> None:
    msgs = session(6)
    r3 = compact(msgs, 6000, keep_recent_rounds=3)
    assert [m.id for m in r3.messages[2:]] == [m.id for m in msgs[16:]]
    r = compact(msgs, 6000, keep_recent_tokens=1500)
    validate_messages(r.messages)  # never between a call and its result
    kept = [m for m in r.messages if m.mark is None]
    assert r.fits and kept[-1] == msgs[-1]


def test_split_turn_gets_a_turn_prefix_summary() -> None:
    msgs = [Message("system", "sys", id="sys"), Message("user", "Old task: rename parse_args().", id="u0"),
            Message("assistant", "Renamed parse_args() to parse_cli().", id="a0"),
            Message("user", "Migrate the whole config loader to TOML.", id="u1")]
    for k in range(8):
        msgs += [Message("assistant", f"Step {k}: reading config_{k}.toml.", id=f"s{k}",
                         tool_calls=(ToolCall(f"c{k}", "read_file", json.dumps({"path": f"conf/config_{k}.toml"})),)),
                 Message("tool", huge_text(2000, f"C{k}>"), id=f"t{k}", tool_call_id=f"c{k}")]
    r = compact(tuple(msgs), 3000, keep_recent_tokens=1200)
    assert r.fits and event(r)["split_turn"]
    assert TURN_CONTEXT in r.summary and "conf/config_0.toml" in r.summary
    assert any(m.id == "u1" and m.mark is None for m in r.messages)  # the newest request is pinned
    validate_messages(r.messages)


def test_incremental_compaction_merges_the_previous_summary() -> None:
    msgs = session(8)
    first = compact(msgs[:26], 5000)  # rounds 0..4 of 8
    carried = first.messages + msgs[26:]
    second = compact(carried, 5000)
    summary = second.messages[1]
    assert first.messages[1].id in summary.source_ids
    assert summary.text.count(SUMMARY_HEADER) == 1
    assert parse_summary(second.summary)[MODIFIED] == [f"src/mod_{t}.py" for t in range(6)]
    assert second.summary.count("Task 0: fix the bug in src/mod_0.py.") == 1


def test_keeps_fewer_rounds_until_it_fits() -> None:
    msgs = session(5, output_chars=9000)
    r = compact(msgs, 4200)
    payload = event(r)
    assert r.fits and payload["attempts"] >= 2
    assert r.tokens_after <= 4200


def test_last_resort_window_keeps_whole_groups_and_the_newest_request() -> None:
    msgs = (Message("system", "sys", id="sys"), Message("user", "Earlier work on src/a.py.", id="u0"),
            Message("assistant", "Done with src/a.py.", id="a0"),
            Message("user", "Inspect the log.", id="u1"),
            Message("assistant", None, id="a1", tool_calls=(ToolCall("c1", "read_file", '{"path": "big.log"}'),)),
            Message("tool", huge_text(120_000), id="t1", tool_call_id="c1"))
    r = compact(msgs, 2000)
    assert r.fits and r.tokens_after <= 2000
    validate_messages(r.messages)
    assert any(m.id == "u1" and m.mark is None for m in r.messages)
    assert {"a1", "t1"} <= set(r.dropped_ids) and "big.log" in r.summary


def test_pinned_messages_over_the_budget_do_not_fit() -> None:
    msgs = (Message("system", prose(4000), id="sys"), Message("user", "old", id="u0"),
            Message("assistant", "reply", id="a0"), Message("user", prose(4000, 3), id="u1"))
    r = compact(msgs, 500)
    assert not r.fits and r.reason and [m.id for m in r.messages if m.mark is None] == ["sys", "u1"]


def test_confirmation_veto_drops_oldest_or_starts_a_new_session() -> None:
    msgs = session(6)
    seen = []

    def ask(usage: Usage):
        seen.append(usage)
        return False

    r = compact(msgs, 5000, "compaction_seed001", confirm=ask)
    assert seen == [Usage(O200K.count_messages(msgs), 5000)]
    assert r.summary is None and r.fits and event(r, "compaction_declined")["fallback"] == "window"
    assert r.messages[0] == msgs[0] and r.messages[-1] == msgs[-1]
    fresh = compact(msgs, 5000, "compaction_seed001", confirm=lambda u: "new_session")
    assert [m.id for m in fresh.messages] == ["sys", "u5"]
    assert compact(msgs, 5000, "compaction_seed001", confirm=lambda u: True).summary is not None


def test_the_confirmation_and_character_cap_are_seed001s() -> None:
    """`compaction` asks nobody and caps no characters; its specs stored with those unset still build."""
    assert "confirm" not in strategy_params("compaction") and "summary_max_chars" not in strategy_params("compaction")
    stored = '{"name": "compaction", "params": {"confirm": null, "summary_max_chars": null, "keep_recent_rounds": 3}}'
    assert StrategySpec.from_json(stored).build() == get_strategy("compaction", keep_recent_rounds=3)
    with pytest.raises(CtxlabError, match="compaction_seed001"):
        get_strategy("compaction", confirm="no")


def test_context_window_caps_the_budget() -> None:
    msgs = session(6)
    r = compact(msgs, 100_000, context_window=9000, reserve_tokens=4000)
    assert r.summary is not None and r.tokens_after <= 5000 and event(r)["limit"] == 5000
    assert get_strategy("compaction", model="gpt-4o").window(10**9) == 128_000 - 16384
    with pytest.raises(CtxlabError, match="unknown model"):
        get_strategy("compaction", model="no-such-model-xyz")
    with pytest.raises(CtxlabError, match="leaves no room"):
        get_strategy("compaction", context_window=1000, reserve_tokens=1000)


def test_seed_counter_and_spec_round_trip() -> None:
    s = get_strategy("compaction", summarizer="llm:model=openai/gpt-4o-mini", summary_max_tokens=500)
    assert type(s).seed_counter == "chars2"
    assert StrategySpec.from_json(s.spec.to_json()).build().spec == s.spec
    assert s.engine.name == "llm:model=openai/gpt-4o-mini"
    assert get_strategy("compaction", prompt="seed001", summarizer="llm", model="gpt-4o").engine.name == \
        "llm:model=gpt-4o,prompt=seed001"


# ---- the LLM summarizer behind compaction (local fake endpoint) ----------------------------------

@pytest.fixture
def llm_env(tmp_path, monkeypatch):
    for name in ("CTXLAB_LLM_MODEL", "CTXLAB_LLM_API_BASE", "CTXLAB_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CTXLAB_LLM_CACHE", str(tmp_path / "llm.duckdb"))
    servers = []

    def start(mode="ok", **kw):
        servers.append(FakeOpenAI(mode, **kw).__enter__())
        return servers[-1]

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def llm(server, **params):
    return get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-x",
                          cache="memory", base_delay=0.01, **params)


def test_llm_summary_and_usage_events(llm_env) -> None:
    server = llm_env()
    r = compact(session(6), 5000, summarizer=llm(server))
    assert r.fits and r.summary.startswith("## Goal\n- Fix the failing login test")
    assert "<modified-files>" in r.summary and "[Tool result read_file]: R0>" in server.prompts()[0]
    call = event(r, "summary_call")
    assert (call["input_tokens"], call["output_tokens"], call["cached"]) == (1200, 150, False)
    assert call["cost_usd"] > 0 and event(r)["summarizer_cost_usd"] == call["cost_usd"]


def test_llm_from_the_environment_with_the_seed_prompt(llm_env, monkeypatch) -> None:
    server = llm_env(reply="用户要求修复多个模块，AI 完成了修改。")
    monkeypatch.setenv("CTXLAB_LLM_MODEL", "openai/fake-model")
    monkeypatch.setenv("CTXLAB_LLM_API_BASE", server.api_base)
    r = compact(session(6), 5000, summarizer="llm", prompt="seed001")
    assert r.summary == "用户要求修复多个模块，AI 完成了修改。"
    assert server.requests[0]["messages"][0]["content"].startswith("请总结以下对话历史的关键信息。")
    assert event(r, "summary_call")["cost_usd"] is None and event(r)["summarizer_cost_usd"] is None


def test_compaction_seed001_sends_the_seed_prompt_and_cuts_the_reply_to_1000_characters(llm_env, monkeypatch) -> None:
    """Seed 001: ``SUMMARY_PROMPT = \"\"\"请总结以下对话历史的关键信息。...4. 简洁，不超过 500 字`` and
    情况 1 (摘要也超过限制): ``summary = summary[:max_summary_tokens]``, with ``summary_max_length:
    1000`` characters. A model that ignores the 500-字 request is cut to the first 1000 characters."""
    reply = "用户要求修复模块。" * 200  # 1800 characters
    server = llm_env(reply=reply)
    monkeypatch.setenv("CTXLAB_LLM_MODEL", "openai/fake-model")
    monkeypatch.setenv("CTXLAB_LLM_API_BASE", server.api_base)
    r = get_strategy("compaction_seed001:summarizer=llm").compress(session(6), 5000, counter="o200k_base")
    prompt = server.requests[0]["messages"][0]["content"]
    assert prompt.startswith("请总结以下对话历史的关键信息。") and "不超过 500 字" in prompt
    assert r.summary == reply[:1000] and event(r)["summarizer"].endswith(",prompt=seed001")


def test_llm_failure_falls_back_to_extractive_and_records_the_error(llm_env) -> None:
    server = llm_env("error500")
    r = compact(session(6), 5000, summarizer=llm(server, attempts=2))
    payload = event(r)
    assert r.fits and r.summary.startswith("## Goal\n- Task 0")
    assert payload["fallback"] == "extractive" and "500" in payload["error"]
    assert event(r, "summary_call")["error"] and len(server.requests) == 2
    dropped = compact(session(6), 5000, summarizer=llm(server, attempts=1), on_error="window")
    assert dropped.summary is None and dropped.fits and event(dropped)["fallback"] == "window"


def test_llm_incremental_compaction_uses_the_update_prompt(llm_env) -> None:
    server = llm_env()
    s = llm(server)
    msgs = session(8)
    first = compact(msgs[:26], 5000, summarizer=s)
    compact(first.messages + msgs[26:], 5000, summarizer=s)
    assert "<previous-summary>" in server.prompts()[-1] and "<previous-summary>" not in server.prompts()[0]


# ---- acceptance on the bundled agent sessions -------------------------------------------------------

@pytest.mark.slow
def test_acceptance_fact_recall_at_8k() -> None:
    from ctxlab.metrics.facts import fact_recall

    convs = [Conversation.from_record(json.loads(line)) for line in DATA.open(encoding="utf-8")]
    over = [c for c in convs if O200K.count_messages(c.messages, c.tools) > 8000]
    assert len(over) >= 20

    def mean_recall(name: str) -> float:
        strategy = get_strategy(name)
        recalls = [fact_recall(c, strategy.compress(c.messages, 8000, counter=O200K, tools=c.tools),
                               auto=False).recall for c in over]
        return sum(recalls) / len(recalls)

    compaction = mean_recall("compaction")
    assert compaction >= 0.90
    for window in ("sliding_window", "window_guard"):
        assert compaction > mean_recall(window)
