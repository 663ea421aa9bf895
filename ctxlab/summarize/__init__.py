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

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.summarize.base import Summarizer, SummaryResult

_NAMES = ("extractive", "llm")


def list_summarizers() -> list[str]:
    """Names `get_summarizer` accepts."""
    return list(_NAMES)


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
    if isinstance(summarizer, Mapping):
        name, parsed = str(summarizer.get("name", "")), dict(summarizer.get("params") or {})
    elif isinstance(summarizer, str):
        from ctxlab.strategies.base import parse_spec

        name, parsed = parse_spec(summarizer) if ":" in summarizer else (summarizer, {})
    else:
        raise CtxlabError(f"summarizer must be a name or a Summarizer, not {type(summarizer).__name__}")
    params = {**parsed, **params}
    if name == "extractive":
        from ctxlab.summarize.extractive import ExtractiveSummarizer as cls
    elif name == "llm":
        from ctxlab.summarize.llm import LLMSummarizer as cls
    else:
        raise UnknownNameError("summarizer", name, list(_NAMES))
    valid = [f for f in cls.__dataclass_fields__ if not f.startswith("_")]
    for key in params:
        if key not in valid:
            raise UnknownNameError(f"parameter of summarizer {name!r}", key, valid)
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise CtxlabError(f"summarizer {name!r}: {exc}") from exc


__all__ = ["Summarizer", "SummaryResult", "get_summarizer", "list_summarizers"]
