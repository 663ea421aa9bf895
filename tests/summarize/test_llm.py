"""The LLM summarizer against a local fake OpenAI-compatible endpoint: prompts sent, usage and
cost, the call cache, retries, failures returned (not raised), and no API key stored."""

from __future__ import annotations

import json

import duckdb
import pytest

from ctxlab.messages import Message, ToolCall
from ctxlab.summarize import get_summarizer, prompts
from ctxlab.summarize.cache import DuckDBCache, MemoryCache
from ctxlab.summarize.serialize import serialize
from ctxlab.tokens import get_counter
from tests.builders import huge_text

SECRET = "sk-test-SECRET-do-not-store-123"
COUNTER = get_counter("o200k_base")
MESSAGES = (
    Message("user", "Fix the failing login test. Never change the public API.", id="u1"),
    Message("assistant", "Reading the module.", id="a1",
            tool_calls=(ToolCall("c1", "read_file", json.dumps({"path": "src/auth/login.py"})),)),
    Message("tool", "def login(user):\n    raise KeyError(user)", id="t1", tool_call_id="c1"),
    Message("assistant", None, id="a2",
            tool_calls=(ToolCall("c2", "edit_file", json.dumps({"path": "src/auth/login.py", "old_string": "a",
                                                               "new_string": "b"})),)),
    Message("tool", "edited", id="t2", tool_call_id="c2"),
)


def summarizer(server, **params):
    params.setdefault("cache", MemoryCache())
    params.setdefault("base_delay", 0.01)
    return get_summarizer("llm", model=params.pop("model", "openai/gpt-4o-mini"), api_base=server.api_base,
                          api_key=SECRET, **params)


def test_structured_summary_with_usage_cost_and_file_lists(fake_openai) -> None:
    server = fake_openai()
    r = summarizer(server).summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    assert r.ok and not r.cached and r.error is None
    assert r.text.startswith("## Goal")
    assert "<modified-files>\nsrc/auth/login.py\n</modified-files>" in r.text
    assert (r.input_tokens, r.output_tokens) == (1200, 150)
    assert r.cost_usd == pytest.approx(1200 * 0.15e-6 + 150 * 0.6e-6)
    assert r.latency_ms > 0 and r.model == "openai/gpt-4o-mini"


def test_the_serialized_conversation_and_prompt_are_sent(fake_openai) -> None:
    server = fake_openai()
    summarizer(server).summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    (request,) = server.requests
    system, user = request["messages"]
    assert system == {"role": "system", "content": prompts.SYSTEM_PROMPT}
    assert user["content"].startswith("<conversation>\n[User]: Fix the failing login test.")
    assert '[Assistant tool call]: read_file(path="src/auth/login.py")' in user["content"]
    assert "[Tool result read_file]: def login(user):" in user["content"]
    assert user["content"].endswith(prompts.STRUCTURED_PROMPT)
    assert request["max_tokens"] == 800 and request["temperature"] == 0.0


def test_seed001_prompt_is_sent_verbatim(fake_openai) -> None:
    server = fake_openai(reply="用户要求修复登录测试，AI 完成了对 src/auth/login.py 的修改。")
    r = summarizer(server, prompt="seed001").summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    transcript = serialize(MESSAGES, counter=COUNTER)
    assert server.requests[0]["messages"] == [
        {"role": "user", "content": prompts.SEED001_PROMPT.format(conversation_history=transcript)}]
    assert r.text == "用户要求修复登录测试，AI 完成了对 src/auth/login.py 的修改。"
    assert "不超过 500 字" in prompts.SEED001_PROMPT and '"用户要求...", "AI 完成了..."' in prompts.SEED001_PROMPT


def test_update_prompt_merges_the_previous_summary(fake_openai) -> None:
    server = fake_openai()
    previous = "## Goal\n- Migrate auth\n\n<read-files>\ndocs/adr/007.md\n</read-files>"
    r = summarizer(server).summarize(MESSAGES, previous_summary=previous, counter=COUNTER, max_tokens=800)
    content = server.requests[0]["messages"][1]["content"]
    assert f"<previous-summary>\n{previous}\n</previous-summary>" in content
    assert content.endswith(prompts.UPDATE_PROMPT)
    assert "<read-files>\ndocs/adr/007.md\n</read-files>" in r.text  # carried forward verbatim


def test_second_identical_call_is_a_cache_hit(fake_openai, tmp_path) -> None:
    server = fake_openai()
    cache = DuckDBCache(tmp_path / "calls.duckdb")
    first = summarizer(server, cache=cache).summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    again = summarizer(server, cache=DuckDBCache(tmp_path / "calls.duckdb")).summarize(
        MESSAGES, counter=COUNTER, max_tokens=800)
    assert len(server.requests) == 1
    assert again.cached and again.text == first.text and again.cost_usd == first.cost_usd
    other = summarizer(server, cache=cache).summarize(MESSAGES[:1], counter=COUNTER, max_tokens=800)
    assert not other.cached and len(server.requests) == 2


def test_no_api_key_in_cache_records_or_names(fake_openai, tmp_path) -> None:
    server = fake_openai()
    path = tmp_path / "calls.duckdb"
    s = summarizer(server, cache=DuckDBCache(path))
    s.summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    assert server.headers[0]["Authorization"] == f"Bearer {SECRET}"  # the key was used...
    rows = duckdb.connect(str(path), read_only=True).execute("SELECT * FROM llm_calls").fetchall()
    assert len(rows) == 1 and SECRET not in repr(rows)  # ...and never stored
    assert SECRET not in path.read_bytes().decode("latin-1")
    assert SECRET not in s.name and SECRET not in repr(s)
    memory = MemoryCache()
    summarizer(server, cache=memory).summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    (record,) = memory.records.values()
    assert SECRET not in json.dumps(record, default=str) and "api_key" not in record["params"]


def test_rate_limits_are_retried(fake_openai) -> None:
    server = fake_openai("flaky", failures=2)
    r = summarizer(server, attempts=4).summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    assert r.ok and len(server.requests) == 3


def test_server_errors_fail_softly_after_bounded_retries(fake_openai) -> None:
    server = fake_openai("error500")
    r = summarizer(server, attempts=3).summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    assert not r.ok and r.text == "" and "500" in r.error and "3 attempt" in r.error
    assert len(server.requests) == 3


def test_client_errors_are_not_retried(fake_openai) -> None:
    server = fake_openai("error400")
    r = summarizer(server, attempts=4).summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    assert "400" in r.error and len(server.requests) == 1


def test_failures_are_not_cached(fake_openai) -> None:
    cache = MemoryCache()
    failing = fake_openai("error500")
    summarizer(failing, attempts=1, cache=cache).summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    (record,) = cache.records.values()
    assert record["error"] and cache.get(next(iter(cache.records)))["error"]
    assert failing.requests  # the failure is recorded, and a later identical call tries again:
    summarizer(failing, attempts=1, cache=cache).summarize(MESSAGES, counter=COUNTER, max_tokens=800)
    assert len(failing.requests) == 2


def test_unconfigured_model_is_an_error_not_a_crash() -> None:
    r = get_summarizer("llm", cache="memory").summarize(MESSAGES, counter=COUNTER, max_tokens=500)
    assert not r.ok and "CTXLAB_LLM_MODEL" in r.error


def test_configuration_from_the_environment(fake_openai, monkeypatch) -> None:
    server = fake_openai()
    monkeypatch.setenv("CTXLAB_LLM_MODEL", "openai/my-local-model")
    monkeypatch.setenv("CTXLAB_LLM_API_BASE", server.api_base)
    monkeypatch.setenv("CTXLAB_LLM_API_KEY", SECRET)
    s = get_summarizer("llm", cache="memory")
    r = s.summarize(MESSAGES, counter=COUNTER, max_tokens=500)
    assert r.ok and r.cost_usd is None  # an unpriced model has an unknown cost, not zero
    assert server.requests[0]["model"] == "my-local-model"
    assert s.name == f"llm:model=openai/my-local-model,api_base={server.api_base}"
    assert SECRET not in s.name


def test_long_tool_outputs_are_clipped_visibly(fake_openai) -> None:
    server = fake_openai()
    big = (*MESSAGES[:2], Message("tool", huge_text(60_000), id="t1", tool_call_id="c1"))
    summarizer(server, tool_output_tokens=300).summarize(big, counter=COUNTER, max_tokens=500)
    content = server.requests[0]["messages"][1]["content"]
    assert "HEAD>" in content and "<TAIL" in content and "characters truncated" in content
    assert len(content) < 5000


def test_an_overlong_reply_is_clipped_to_max_tokens(fake_openai) -> None:
    server = fake_openai(reply="## Progress\n" + "- step done with src/a.py\n" * 400)
    r = summarizer(server).summarize(MESSAGES, counter=COUNTER, max_tokens=200)
    assert COUNTER.count(r.text) <= 200 and r.text.startswith("## Progress")


def test_spec_string_round_trip() -> None:
    s = get_summarizer("llm", model="openai/gpt-4o-mini", prompt="seed001", api_key=SECRET, cache="memory")
    assert s.name == "llm:model=openai/gpt-4o-mini,prompt=seed001"
    rebuilt = get_summarizer(s.name)
    assert (rebuilt.model, rebuilt.prompt, rebuilt.api_key) == ("openai/gpt-4o-mini", "seed001", None)
