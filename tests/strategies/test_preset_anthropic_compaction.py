"""`anthropic_compaction` against the Claude API's ``compact_20260112``, rule by rule: past
``trigger`` input tokens (at least 50,000) one compaction block replaces everything before it, an
earlier one summarized again; ``instructions`` replace the summarization prompt; and the
summarization pass is billed apart (a ``summary_call``, estimated when ctxlab summarizes offline)."""

from __future__ import annotations

import pytest

from ctxlab.cost import price_model, price_usage
from ctxlab.errors import CtxlabError
from ctxlab.messages import Message
from ctxlab.replay.metrics import llm_usage
from ctxlab.strategies import SUMMARY_CALL, get_strategy
from ctxlab.strategies.mechanics.integrity import DROPPED_PINNED
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from ctxlab.tokens import get_counter
from tests.summarize.fake_openai import FakeOpenAI

CHARS4 = get_counter("chars4")


def history(tokens: int) -> tuple[Message, ...]:
    """system (10 tokens), a task, an answer of the rest, a new request: `tokens` chars4 tokens."""
    return (Message("system", "s" * 40, id="s"), Message("user", "Port the parser to Rust.", id="u1"),
            Message("assistant", "a" * (4 * (tokens - 10 - 6 - 2)), id="a1"), Message("user", "Go on.", id="u2"))


def compress(messages, **params):
    return get_strategy("anthropic_compaction", **params).compress(messages, 1_000_000, counter="chars4")


def test_it_compacts_once_the_input_exceeds_150000_tokens() -> None:
    at, over = history(150_000), history(150_001)
    assert CHARS4.count_messages(at) == 150_000
    assert compress(at).messages == at
    system, block = compress(over).messages
    assert system is over[0] and block.mark == "summary"


def test_a_trigger_under_50000_is_refused() -> None:
    with pytest.raises(CtxlabError, match="at least 50000.*50,000"):
        get_strategy("anthropic_compaction", trigger_tokens=40_000)
    assert get_strategy("anthropic_compaction", trigger_tokens=50_000).trigger_tokens == 50_000


def test_the_block_replaces_everything_before_it_the_newest_request_too() -> None:
    r = compress(history(150_001))
    assert set(r.dropped_ids) == {"u1", "a1", "u2"}
    assert [e.payload["ids"] for e in r.events if e.name == DROPPED_PINNED] == [["u2"]]
    assert r.messages[1].text == r.summary  # the compaction block holds the summary alone


def test_an_earlier_block_is_summarized_again_with_the_rest() -> None:
    first = compress(history(150_001)).messages
    later = (*first, Message("assistant", "b" * 600_000, id="a2"), Message("user", "Next.", id="u3"))
    system, block = compress(later).messages
    assert set(block.source_ids) >= {"u1", "a1", "u2", "a2", "u3"}


def test_offline_the_billed_summarization_pass_is_estimated() -> None:
    messages = history(150_001)
    r = get_strategy("anthropic_compaction", model="claude-sonnet-4-5").compress(messages, 1_000_000,
                                                                                 counter="chars4")
    (call,) = [e.payload for e in r.events if e.name == SUMMARY_CALL]
    assert call["estimated"] and call["model"] == "claude-sonnet-4-5"
    assert call["input_tokens"] == 150_001 and call["output_tokens"] == CHARS4.count(r.summary)
    usage = llm_usage(r.events)  # what replay pricing reads
    billed = price_usage(price_model("claude-sonnet-4-5"), usage.input_tokens, usage.output_tokens).cost_usd
    assert usage.calls == 1 and billed > 0.4  # 150k input tokens at $3 per million and the output


@pytest.fixture
def fake(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXLAB_LLM_CACHE", str(tmp_path / "calls.duckdb"))
    with FakeOpenAI(reply="Thinking first.\n<summary>\nThe parser is half ported.\n</summary>") as server:
        yield server, get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base, api_key="sk-test",
                                     cache=MemoryCache(), base_delay=0.01, attempts=1)


def test_with_an_llm_the_default_prompt_and_the_summary_tags(fake) -> None:
    server, engine = fake
    r = compress(history(150_001), summarizer=engine)
    (sent,) = server.prompts()
    assert ap.ANTHROPIC_COMPACTION_PROMPT in sent and "Port the parser to Rust." in sent
    assert r.summary == "The parser is half ported."
    (call,) = [e.payload for e in r.events if e.name == SUMMARY_CALL]
    assert "estimated" not in call and (call["input_tokens"], call["output_tokens"]) == (1200, 150)


def test_instructions_replace_the_prompt(fake) -> None:
    server, engine = fake
    compress(history(150_001), summarizer=engine, summary_instructions="List every file path, nothing else.")
    (sent,) = server.prompts()
    assert "List every file path, nothing else." in sent and ap.ANTHROPIC_COMPACTION_PROMPT not in sent


def test_instructions_need_a_voice_that_reads_them() -> None:
    with pytest.raises(CtxlabError, match="summary_instructions"):
        get_strategy("pi", summary_instructions="Keep paths.")
