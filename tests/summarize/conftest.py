"""Fixtures of the summarizer tests: a local fake OpenAI endpoint and an isolated LLM cache."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.summarize.fake_openai import FakeOpenAI


@pytest.fixture
def fake_openai() -> Iterator[Callable[..., FakeOpenAI]]:
    """A factory: ``fake_openai(mode="flaky", failures=2)`` starts a server, stopped after the test."""
    servers: list[FakeOpenAI] = []

    def start(mode: str = "ok", **kwargs) -> FakeOpenAI:
        server = FakeOpenAI(mode, **kwargs).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


@pytest.fixture(autouse=True)
def isolated_llm_env(tmp_path, monkeypatch) -> None:
    """No test reads the developer's LLM configuration or writes the shared cache file."""
    for name in ("CTXLAB_LLM_MODEL", "CTXLAB_LLM_API_BASE", "CTXLAB_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CTXLAB_LLM_CACHE", str(tmp_path / "llm_calls.duckdb"))
