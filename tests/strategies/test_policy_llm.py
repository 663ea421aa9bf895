"""Presets with ``summarizer=llm`` send their agent's own prompt (against the local fake OpenAI
endpoint), report each call's usage, and fall back to the offline summarizer when the call fails."""

from __future__ import annotations

import pytest

from ctxlab.strategies import get_strategy
from ctxlab.summarize import agent_prompts as ap
from ctxlab.summarize import get_summarizer
from ctxlab.summarize.cache import MemoryCache
from tests.builders import Convo
from tests.summarize.fake_openai import FakeOpenAI

SESSION = (Convo().system().user("Port the config loader to TOML.").tools(("read_file", "x" * 3000))
           .assistant("Loader ported.").user("Now add tests.").tools(("read_file", "y" * 3000))
           .assistant("Tests added.").user("Thanks, update the changelog.").build())


@pytest.fixture
def fake(tmp_path, monkeypatch):
    monkeypatch.setenv("CTXLAB_LLM_CACHE", str(tmp_path / "calls.duckdb"))
    servers = []

    def start(**kwargs) -> tuple[FakeOpenAI, object]:
        server = FakeOpenAI(**kwargs).__enter__()
        servers.append(server)
        return server, get_summarizer("llm", model="openai/gpt-4o-mini", api_base=server.api_base,
                                      api_key="sk-test", cache=MemoryCache(), base_delay=0.01, attempts=1)

    yield start
    for server in servers:
        server.__exit__(None, None, None)


@pytest.mark.parametrize(("name", "params", "prompt"), [
    ("codex", {}, ap.CODEX_PROMPT),
    ("langchain_summarization", {"keep_messages": 3}, ap.LANGCHAIN_SUMMARY_PROMPT.split("{messages}")[0]),
    ("openhands", {"trigger_events": 8}, ap.OPENHANDS_PROMPT_HEAD),
    ("inspect_summary", {}, ap.INSPECT_SUMMARY_PROMPT.format(addendums="")),
    ("opencode", {}, ap.OPENCODE_PROMPT),
    ("cline", {"keep_tokens": 10}, ap.CLINE_SYSTEM_PROMPT),
    ("goose", {}, ap.GOOSE_COMPACTION_PROMPT.split("{messages}")[0]),
    ("letta", {"evict_share": 0.1}, ap.LETTA_SLIDING_PROMPT),
])
def test_each_preset_sends_its_agents_prompt(fake, name: str, params: dict, prompt: str) -> None:
    server, engine = fake(reply="GOAL: port the loader")
    r = get_strategy(name, summarizer=engine, **params).compress(SESSION, 300, counter="o200k_base")
    sent = server.prompts()
    assert len(sent) == 1 and prompt.strip() in sent[0] and "Loader ported." in sent[0]
    assert r.summary.split("\n\n## Files\n")[0] == "GOAL: port the loader"  # Cline appends its files
    (call,) = [e.payload for e in r.events if e.name == "summary_call"]
    assert (call["input_tokens"], call["output_tokens"], call["error"]) == (1200, 150, None)


def test_openhands_sends_one_event_block_per_forgotten_message(fake) -> None:
    server, engine = fake()
    get_strategy("openhands", summarizer=engine, trigger_events=8).compress(SESSION, 10_000, counter="o200k_base")
    (body,) = server.prompts()
    assert body.startswith(ap.OPENHANDS_PROMPT_HEAD) and body.endswith(ap.OPENHANDS_PROMPT_TAIL)
    assert body.count("<EVENT>") == body.count("</EVENT>") >= 3


def test_inspect_drops_the_analysis_scratchpad(fake) -> None:
    server, engine = fake(reply="<analysis>\nthinking it over\n</analysis>\n\n<summary>\n1. Primary Request\n</summary>")
    r = get_strategy("inspect_summary", summarizer=engine).compress(SESSION, 300, counter="o200k_base")
    assert r.summary == "<summary>\n1. Primary Request\n</summary>"


def test_a_failed_call_falls_back_to_the_offline_summary_in_the_agents_shape(fake) -> None:
    server, engine = fake(mode="error500")
    r = get_strategy("codex", summarizer=engine).compress(SESSION, 300, counter="o200k_base")
    assert r.summary.startswith("## Goal / user objective\n- Port the config loader to TOML.")
    (call,) = [e.payload for e in r.events if e.name == "summary_call"]
    assert call["error"] and r.messages[-1].text.startswith(ap.CODEX_SUMMARY_PREFIX)


def test_offline_summaries_take_each_agents_sections() -> None:
    # Each voice's shape, at the summary cap (a calibrated summary of this tiny session drops sections).
    firsts = {name: get_strategy(name, summarizer="extractive:length=cap", **params).compress(
        SESSION, 300, counter="o200k_base").summary.splitlines()[0]
              for name, params in [("codex", {}), ("langchain_summarization", {"keep_messages": 3}),
                                   ("openhands", {"trigger_events": 8}), ("inspect_summary", {}),
                                   ("gemini_cli", {}), ("opencode", {}), ("cline", {"keep_tokens": 10}),
                                   ("aider", {"trigger_min_tokens": 0}), ("goose", {}), ("letta", {"evict_share": 0.1})]}
    assert firsts.pop("aider").startswith("Port the config loader to TOML.")  # prose: paragraphs, no headers
    assert firsts == {"codex": "## Goal / user objective", "langchain_summarization": "## SESSION INTENT",
                      "openhands": "USER_CONTEXT:", "inspect_summary": "1. Primary Request and Intent:",
                      "gemini_cli": "<state_snapshot>", "opencode": "## Goal", "cline": "## Goal",
                      "goose": "## Goal", "letta": "## High level goals"}
