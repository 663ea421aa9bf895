"""A spec that names the LLM summarizer summarizes with the configured model, in `apply` and in the
middleware alike (here a local fake OpenAI endpoint, configured as a user would: environment)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.messages import convert_to_openai_messages

import ctxlab
from ctxlab.integrations.langchain import ContextPolicyMiddleware
from tests.builders import Convo, huge_text
from tests.integrations.agent_script import run
from tests.summarize.fake_openai import FakeOpenAI

REPLY = "## Goal\n- Port the config loader to TOML (summarized by the configured model)"


@pytest.fixture
def endpoint(tmp_path, monkeypatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(reply=REPLY) as server:
        monkeypatch.setenv("CTXLAB_LLM_MODEL", "openai/gpt-4o-mini")
        monkeypatch.setenv("CTXLAB_LLM_API_BASE", server.api_base)
        monkeypatch.setenv("CTXLAB_LLM_API_KEY", "sk-test")
        monkeypatch.setenv("CTXLAB_LLM_CACHE", str(tmp_path / "calls.duckdb"))
        yield server


def test_apply_summarizes_with_the_configured_model(endpoint: FakeOpenAI) -> None:
    session = (Convo().system().user("Port the config loader to TOML.").tools(("read_file", huge_text(6000)))
               .assistant("Loader ported.").user("Now add tests.").tools(("read_file", huge_text(6000)))
               .assistant("Tests added.").user("Thanks, update the changelog.").build())
    state = ctxlab.ApplyState()
    out = ctxlab.apply([m.to_openai() for m in session], "compaction:summarizer=llm", 2500, state=state)
    assert endpoint.prompts() and any(REPLY in str(m["content"]) for m in out)
    assert any(e.name == "summary_call" and e.payload["error"] is None for e in state.result.events)


def test_the_middleware_summarizes_with_the_configured_model(endpoint: FakeOpenAI) -> None:
    model, _ = run([ContextPolicyMiddleware("pi:trigger_reserve=2000,keep_tokens=2500,summarizer=llm", window=8000)])
    sent = [convert_to_openai_messages(seen) for seen in model.seen]
    assert endpoint.prompts() and any(REPLY in str(m["content"]) for m in sent[-1])
