"""`ctxlab.replay.agreement` against a local fake OpenAI endpoint that answers with tool calls: the
sampled calls, what the model is sent (the policy's output, the session's tools, nothing after the
call), the rows stored, the cache, retries and failures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ctxlab import store
from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.replay import AgreeConfig, agree, sample_calls
from ctxlab.replay.agreement import NoModelError
from ctxlab.summarize.client import Retry
from tests.replay.helpers import write_jsonl
from tests.summarize.fake_openai import FakeOpenAI

MARK = re.compile(r"<m(\d+)>")
TOOLS = [{"type": "function", "function": {"name": name, "description": f"{name} tool", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}}}}} for name in ("list_files", "read_file")]


def session(sid: str = "s1", filler: int = 3000) -> dict:
    """An agent session whose third call reads a file named only in the first call's output (m3);
    every message carries a marker ``<mN>`` of its position."""
    def use(i: int, name: str, path: str) -> dict:
        return {"role": "assistant", "content": f"<m{i}>", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps({"path": path})}}]}

    def result(i: int, text: str) -> dict:
        return {"role": "tool", "tool_call_id": f"c{i - 1}", "content": f"<m{i}> {text} " + "x " * (filler // 2)}

    messages = [{"role": "system", "content": "<m0> You are a coding agent."},
                {"role": "user", "content": "<m1> Fix the config loader."},
                use(2, "list_files", "src"), result(3, "src/alpha_config.py src/beta.py"),
                use(4, "read_file", "src/beta.py"), result(5, "beta imports the config module"),
                use(6, "read_file", "src/alpha_config.py"), result(7, "ALPHA = 1"),
                {"role": "assistant", "content": "<m8> Fixed."}, {"role": "user", "content": "<m9> Thanks."}]
    return {"id": sid, "messages": messages, "tools": TOOLS}


def oracle(body: dict) -> dict:
    """A fake model that reads the file it can see named, else guesses."""
    seen = json.dumps(body["messages"])
    path = "src/alpha_config.py" if "alpha_config" in seen else "src/unknown.py"
    return {"role": "assistant", "content": None, "tool_calls": [{"id": "p1", "type": "function", "function": {
        "name": "read_file", "arguments": json.dumps({"path": path})}}]}


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    for name in ("CTXLAB_LLM_MODEL", "CTXLAB_LLM_API_BASE", "CTXLAB_LLM_API_KEY", "CTXLAB_AGREEMENT_MODEL",
                 "CTXLAB_AGREEMENT_API_BASE", "CTXLAB_AGREEMENT_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CTXLAB_LLM_CACHE", str(tmp_path / "llm_calls.duckdb"))


def configure(server: FakeOpenAI, monkeypatch, tmp_path: Path, **kwargs) -> AgreeConfig:
    monkeypatch.setenv("CTXLAB_AGREEMENT_API_BASE", server.api_base)
    monkeypatch.setenv("CTXLAB_AGREEMENT_API_KEY", "sk-test-SECRET")
    source = write_jsonl(tmp_path / "sessions.jsonl", kwargs.pop("records", [session()]))
    defaults = {"model": "openai/gpt-4o-mini", "db": str(tmp_path / "a.duckdb"), "retry": Retry(4, 0.01, 0.05)}
    return AgreeConfig((source,), tuple(kwargs.pop("strategies", ("sliding_window",))),
                       kwargs.pop("window", 1500), **{**defaults, **kwargs})


def rows_of(db: str):
    with store.reading(db) as con:
        return store.agreement_rows(con)


def test_the_model_sees_what_the_policy_sends_and_is_scored_against_the_recorded_call(tmp_path, monkeypatch):
    with FakeOpenAI(message_fn=oracle) as server:
        summary = agree(configure(server, monkeypatch, tmp_path))
    assert (summary.status, summary.sessions, summary.rows, summary.errors) == ("finished", 1, 6, 0)
    rows = rows_of(summary.db).set_index(["label", "call"])
    assert set(rows.index) == {(label, t) for label in ("noop", "sliding_window") for t in (2, 4, 6)}
    # With the full history the model finds the file named at m3; the window policy dropped it.
    full, windowed = rows.loc[("noop", 6)], rows.loc[("sliding_window", 6)]
    assert (full.name_match, full.arg_exact, full.proposed_arguments) == (True, 1.0, '{"path": "src/alpha_config.py"}')
    assert (windowed.name_match, windowed.arg_exact) == (True, 0.0)
    assert windowed.tokens_sent < full.tokens_sent <= windowed.tokens_sent + 2000
    assert json.loads(full.recorded_calls) == [{"name": "read_file", "arguments": '{"path": "src/alpha_config.py"}'}]
    first = rows.loc[("noop", 2)]  # the agent listed "src"; the model read src/unknown.py: another tool
    assert not first.name_match and not first.text_answer
    assert (first.arg_exact, first.arg_overlap) == (0.0, pytest.approx(1 / 3))  # {src} of {src, unknown, py}
    assert rows["model"].eq("openai/gpt-4o-mini").all() and rows["cost_usd"].gt(0).all()


def test_requests_hold_the_session_tools_and_nothing_after_the_call(tmp_path, monkeypatch):
    with FakeOpenAI(message_fn=oracle) as server:
        agree(configure(server, monkeypatch, tmp_path, strategies=("sliding_window", "observation_masking")))
    # Identical requests (early calls where no policy cuts anything) are asked once.
    assert 3 <= len(server.requests) <= 9
    for request in server.requests:
        assert request["tools"] == TOOLS and request["temperature"] == 0.0
        seen = [int(n) for m in request["messages"] for n in MARK.findall(json.dumps(m))]
        last = int(MARK.findall(json.dumps(request["messages"][-1]))[0])
        assert last + 1 in (2, 4, 6) and max(seen) == last  # the history ends right before the call
    assert "SECRET" not in json.dumps(server.requests)  # the key goes in a header, never in the body


def test_a_policy_steps_through_every_call_before_the_sampled_one(tmp_path, monkeypatch, fake_strategies):
    """`test_stateful` numbers its summaries; at the one sampled call, the request carries the
    summary the per-turn replay would have made by then (state carried over unsampled calls)."""
    records = [{"id": "s", "messages": [
        {"role": "user", "content": f"task {i}"} if i % 3 == 0 else
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]} if i % 3 == 1
        else {"role": "tool", "tool_call_id": f"c{i - 1}", "content": "ok"} for i in range(12)]}]
    conv = Conversation.from_record(records[0])
    seed = next(s for s in range(100) if sample_calls(conv, 1, s) == (10,))  # the last of calls 1, 4, 7, 10
    with FakeOpenAI(message_fn=oracle) as server:
        agree(configure(server, monkeypatch, tmp_path, records=records, strategies=("test_stateful",),
                        baseline=False, calls=1, seed=seed, window=10_000))
    (request,) = server.requests
    summaries = [m["content"] for m in request["messages"] if str(m.get("content", "")).startswith("summary#")]
    assert summaries == ["summary#3"]  # folded at calls 4, 7 and 10, though only 10 was asked about


def test_a_second_run_is_answered_by_the_cache_and_replaces_the_rows(tmp_path, monkeypatch):
    with FakeOpenAI(message_fn=oracle) as server:
        config = configure(server, monkeypatch, tmp_path)
        first = agree(config)
        asked = len(server.requests)
        second = agree(config)
        assert len(server.requests) == asked  # no new call
    assert first.run_id == second.run_id and first.model_calls == asked and second.model_calls == 0
    rows = rows_of(second.db)
    assert len(rows) == 6 and rows["cached"].all()
    with store.reading(second.db) as con:
        runs = store.agreement_runs(con)
        assert len(runs) == 1 and runs.loc[0, "calls"] == 6 and runs.loc[0, "status"] == "finished"
        assert store.runs(con).empty  # a replay's "newest run" is not an agreement run
        stored = con.execute("SELECT count(*), max(params) FROM llm_calls").fetchall()[0]
    assert stored[0] == asked and "SECRET" not in str(stored)


def test_rate_limits_are_retried(tmp_path, monkeypatch):
    with FakeOpenAI("flaky", failures=2, message_fn=oracle) as server:
        summary = agree(configure(server, monkeypatch, tmp_path, strategies=(), jobs=1))
        assert len(server.requests) == 3 + 2  # three calls, two 429s retried
    assert summary.errors == 0 and rows_of(summary.db)["name_match"].notna().all()


def test_a_failing_model_is_a_row_with_its_error_not_a_crash(tmp_path, monkeypatch):
    with FakeOpenAI("error400", message_fn=oracle) as server:
        summary = agree(configure(server, monkeypatch, tmp_path, strategies=()))
        assert len(server.requests) == 3  # a client error is not retried
    rows = rows_of(summary.db)
    assert summary.errors == 3 and rows["error"].str.contains("400").all() and rows["name_match"].isna().all()


def test_without_a_model_nothing_runs(tmp_path):
    with pytest.raises(NoModelError, match="CTXLAB_AGREEMENT_MODEL"):
        agree(AgreeConfig(("does-not-exist.jsonl",), ("pi",), 8000, db=str(tmp_path / "a.duckdb")))
    assert not (tmp_path / "a.duckdb").exists()


def test_at_least_one_policy_is_needed(tmp_path, monkeypatch):
    with FakeOpenAI(message_fn=oracle) as server, pytest.raises(CtxlabError, match="--strategy"):
        agree(configure(server, monkeypatch, tmp_path, strategies=(), baseline=False))


def test_sampled_calls_are_tool_calls_seeded_per_session():
    conv = Conversation.from_record(session())
    assert sample_calls(conv, 5) == (2, 4, 6)  # every tool call when there are fewer; not the text answer (8)
    assert len(sample_calls(conv, 2)) == 2 and set(sample_calls(conv, 2)) <= {2, 4, 6}
    assert sample_calls(conv, 2, seed=1) == sample_calls(conv, 2, seed=1)
    draws = {sample_calls(Conversation.from_record(session(f"s{i}")), 1) for i in range(20)}
    assert len(draws) > 1  # the session id seeds the draw too


def test_what_a_policy_sends_at_a_call_is_what_the_per_turn_replay_measures(tmp_path, monkeypatch):
    from ctxlab.replay import ReplayConfig, replay

    with FakeOpenAI(message_fn=oracle) as server:
        config = configure(server, monkeypatch, tmp_path, strategies=("sliding_window", "observation_masking"))
        summary = agree(config)
    replayed = replay(ReplayConfig(config.sources, config.strategies, (config.window,), counters=("seed",),
                                   modes=("per-turn",), estimators=(), quality=False, workers=0,
                                   db=str(tmp_path / "replay.duckdb")))
    with store.reading(replayed.db) as con:
        units = store.results(con, replayed.run_id, reference="o200k_base")
    sent = units.set_index(["label", "turn"])["reference_tokens_after"]
    rows = rows_of(summary.db)
    rows = rows[rows["label"] != "noop"]
    assert len(rows) == 6
    for r in rows.itertuples():
        assert r.tokens_sent == sent[(r.label, r.call)]


def test_ctrl_c_keeps_the_sessions_answered_so_far(tmp_path, monkeypatch):
    from ctxlab.replay import agreement
    from ctxlab.replay.agreement import AgreeInterrupted

    real = agreement.session_probes

    def interrupted_at_the_second_session(conv, *args, **kwargs):
        if conv.id == "s2":
            raise KeyboardInterrupt
        return real(conv, *args, **kwargs)

    monkeypatch.setattr(agreement, "session_probes", interrupted_at_the_second_session)
    with FakeOpenAI(message_fn=oracle) as server:
        config = configure(server, monkeypatch, tmp_path, records=[session("s1"), session("s2")])
        with pytest.raises(AgreeInterrupted, match="run the same command again"):
            agree(config)
    rows = rows_of(config.db)
    assert set(rows["conversation_id"]) == {"s1"} and len(rows) == 6
    with store.reading(config.db) as con:
        assert store.agreement_runs(con).loc[0, "status"] == "interrupted"
