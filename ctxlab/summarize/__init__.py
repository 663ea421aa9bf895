"""Summarizers behind one protocol: `extractive` (offline, the default) and `llm` (any litellm model).

    from ctxlab.summarize import get_summarizer
    s = get_summarizer("llm", model="openai/gpt-4o-mini", prompt="seed001")
    r = s.summarize(messages, counter=get_counter("o200k_base"), max_tokens=1000)

A summarizer's `name` is a spec string (``"llm:model=openai/gpt-4o-mini,prompt=seed001"``) that
`get_summarizer` accepts back, so a compaction stored in DuckDB can be rebuilt; API keys never
appear in it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ctxlab.errors import CtxlabError
from ctxlab.registry import Registry
from ctxlab.summarize.base import Summarizer, SummaryResult

# Lazy entries: the LLM summarizer's module imports the litellm client only when built.
SUMMARIZERS: Registry[type[Summarizer]] = Registry("summarizer")
SUMMARIZERS.register("extractive", "ctxlab.summarize.extractive:ExtractiveSummarizer")
SUMMARIZERS.register("llm", "ctxlab.summarize.llm:LLMSummarizer")


def list_summarizers() -> list[str]:
    """Names `get_summarizer` accepts."""
    return SUMMARIZERS.names()


def get_summarizer(summarizer: str | Mapping[str, Any] | Summarizer = "extractive", **params: Any) -> Summarizer:
    """A summarizer by name, spec string (``"llm:model=x,prompt=seed001"``), ``{"name", "params"}``
    mapping, or an object that already implements `Summarizer` (returned as is).

    Raises:
        UnknownNameError: unknown summarizer or parameter.
        CtxlabError: a parameter value of the wrong type.
    """
    if isinstance(summarizer, Summarizer) and not isinstance(summarizer, str | Mapping):
        if params:
            raise CtxlabError("parameters cannot be applied to a summarizer object")
        return summarizer
    if not isinstance(summarizer, str | Mapping):
        raise CtxlabError(f"summarizer must be a name or a Summarizer, not {type(summarizer).__name__}")
    return SUMMARIZERS.build(summarizer, **params)


__all__ = ["SUMMARIZERS", "Summarizer", "SummaryResult", "get_summarizer", "list_summarizers"]
