"""One cached, retried chat completion through litellm (summaries and probe judging share it).

litellm is imported lazily, with ``LITELLM_LOCAL_MODEL_COST_MAP=True`` (else it fetches its price
map over the network) and ``HF_HUB_OFFLINE=1``. Rate limits (429), timeouts and server errors
(5xx) are retried with exponential backoff and jitter; other 4xx are not. A final failure comes
back as `CallResult.error`, never as an exception.

A call may offer the model tools (next-action agreement, `ctxlab.metrics.agreement`): the tool
definitions are then part of the input hash, and the cached ``response`` holds the assistant
message as JSON (``{"content", "tool_calls": [{"id", "name", "arguments"}]}``), decoded back into
`CallResult.text` and `CallResult.tool_calls` on a hit.
"""

from __future__ import annotations

import json
import os
import random
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from urllib.parse import urlsplit, urlunsplit

from ctxlab.messages import ToolCall
from ctxlab.summarize.cache import CallCache, call_key, input_hash

_RETRY_STATUS = {408, 409, 425, 429}
_NO_KEY_PROVIDERS = ("openai/", "hosted_vllm/", "text-completion-openai/")


@dataclass(frozen=True)
class Retry:
    """Backoff policy: `attempts` tries, delays ``base * 2**n`` capped at `max_delay`, +-`jitter`."""

    attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 20.0
    jitter: float = 0.25

    def delay(self, attempt: int, hint: float | None = None) -> float:
        wait = min(self.max_delay, self.base_delay * 2 ** attempt)
        if hint is not None:
            wait = min(self.max_delay, max(wait, hint))
        return wait * (1 + self.jitter * (2 * random.random() - 1))


@dataclass(frozen=True)
class Endpoint:
    """Which model to call and where: parameters first, then ``CTXLAB_LLM_MODEL``,
    ``CTXLAB_LLM_API_BASE``, ``CTXLAB_LLM_API_KEY``, then litellm's own provider variables."""

    model: str | None = None
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0

    def resolve(self) -> Endpoint:
        return Endpoint(self.model or os.environ.get("CTXLAB_LLM_MODEL") or None,
                        self.api_base or os.environ.get("CTXLAB_LLM_API_BASE") or None,
                        self.api_key or os.environ.get("CTXLAB_LLM_API_KEY") or None, self.timeout)


class CallResult(NamedTuple):
    """A completion's text and usage; `error` is set (and `text` empty) when it failed; the tool
    calls the model made when it was offered tools."""

    text: str
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    latency_ms: float | None
    model: str | None
    cached: bool
    error: str | None
    key: str | None
    tool_calls: tuple[ToolCall, ...] = ()


def configured(endpoint: Endpoint | None = None) -> bool:
    """True when a model is configured (by parameter or ``CTXLAB_LLM_MODEL``)."""
    return bool((endpoint or Endpoint()).resolve().model)


def complete(messages: Sequence[Mapping[str, Any]], *, endpoint: Endpoint, prompt_name: str,
             prompt_text: str, params: Mapping[str, Any], cache: CallCache, retry: Retry = Retry(),
             tools: Sequence[Mapping[str, Any]] | None = None) -> CallResult:
    """A cached completion of `messages`.

    Args:
        messages: the chat messages to send.
        endpoint: model, base URL and key (the key is used for the call only, never stored).
        prompt_name: names the prompt in the cache record (``structured``, ``seed001``, ``judge``...).
        prompt_text: the prompt template, part of the cache key so an edited prompt misses.
        params: completion parameters (temperature, max_tokens); part of the key and the record.
        cache: where records are looked up and stored.
        retry: the backoff policy.
        tools: tool definitions (OpenAI format) offered to the model; its calls come back in
            `CallResult.tool_calls`.
    """
    ep = endpoint.resolve()
    if not ep.model:
        return _failed(None, "no LLM model configured (pass model= or set CTXLAB_LLM_MODEL)")
    sent = [dict(m) for m in messages]
    offered = [dict(t) for t in tools] if tools is not None else None
    recorded = {**params, "api_base": _public_url(ep.api_base)}
    digest = input_hash(sent if offered is None else {"messages": sent, "tools": offered})
    key = call_key(ep.model, prompt_name, prompt_text, recorded, digest)
    hit = _lookup(cache, key)
    if hit is not None:
        text, calls = _decode(hit.get("response") or "", offered is not None)
        return CallResult(text, hit.get("input_tokens"), hit.get("output_tokens"), hit.get("cost_usd"),
                          hit.get("latency_ms"), ep.model, True, None, key, calls)
    litellm = litellm_module()  # imported before the clock starts: the import takes seconds
    started = time.perf_counter()
    # litellm 1.106.2 imports its MCP gateway (and the optional `mcp` package, not installed)
    # whenever tools are passed; plain function tools never need it, so it is skipped.
    call_params = {**params, "tools": offered, "_skip_mcp_handler": True} if offered else params
    response, error = _call_with_retry(litellm, sent, ep, call_params, retry)
    latency = (time.perf_counter() - started) * 1000
    record: dict[str, Any] = {"model": ep.model, "prompt_name": prompt_name, "params": recorded,
                              "input_hash": digest, "latency_ms": latency, "error": error}
    if response is not None:
        usage = getattr(response, "usage", None)
        record.update(response=_encode(response.choices[0].message, offered is not None),
                      input_tokens=getattr(usage, "prompt_tokens", None),
                      output_tokens=getattr(usage, "completion_tokens", None), cost_usd=_cost(response))
    _store(cache, key, record)
    if error is not None:
        return _failed(ep.model, error, latency, key)
    text, calls = _decode(record["response"], offered is not None)
    return CallResult(text, record["input_tokens"], record["output_tokens"], record["cost_usd"], latency,
                      ep.model, False, None, key, calls)


def _encode(message: Any, with_tools: bool) -> str:
    """The stored response: the text, or with tools the message as JSON (text and tool calls)."""
    if not with_tools:
        return message.content or ""
    calls = [{"id": getattr(c, "id", None) or "", "name": c.function.name or "",
              "arguments": c.function.arguments or ""} for c in (getattr(message, "tool_calls", None) or ())]
    return json.dumps({"content": message.content or "", "tool_calls": calls}, ensure_ascii=False)


def _decode(response: str, with_tools: bool) -> tuple[str, tuple[ToolCall, ...]]:
    if not with_tools:
        return response, ()
    data = json.loads(response)
    return data.get("content") or "", tuple(ToolCall(c["id"], c["name"], c["arguments"]) for c in data["tool_calls"])


def litellm_module() -> Any:
    """litellm, imported offline-safe (local price map, no hub access, no debug banners)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    tiktoken_dir = os.environ.get("TIKTOKEN_CACHE_DIR")
    # pydantic warns about litellm's own response types when it first builds their schemas
    warnings.filterwarnings("ignore", message=r".*is using the `ReadOnly` qualifier", category=UserWarning)
    import litellm

    if tiktoken_dir is not None:  # litellm may repoint tiktoken; ctxlab's counters rely on it
        os.environ["TIKTOKEN_CACHE_DIR"] = tiktoken_dir
    litellm.suppress_debug_info = True
    return litellm


def _call_with_retry(litellm: Any, messages: list[dict], ep: Endpoint, params: Mapping[str, Any],
                     retry: Retry) -> tuple[Any, str | None]:
    kwargs: dict[str, Any] = {"model": ep.model, "messages": messages, "timeout": ep.timeout,
                              "max_retries": 0, "num_retries": 0, **params}
    if ep.api_base:
        kwargs["api_base"] = ep.api_base
    api_key = ep.api_key
    if not api_key and ep.api_base and (ep.model or "").startswith(_NO_KEY_PROVIDERS) and not os.environ.get("OPENAI_API_KEY"):
        api_key = "not-needed"  # local OpenAI-compatible servers (vLLM, llama.cpp) take any key
    if api_key:
        kwargs["api_key"] = api_key
    last = "no attempt made"
    for attempt in range(max(1, retry.attempts)):
        try:
            return litellm.completion(**kwargs), None
        except Exception as exc:  # litellm maps provider errors to its own classes; sort by status
            status = getattr(exc, "status_code", None)
            last = f"{type(exc).__name__}" + (f" ({status})" if status else "") + f": {_first_line(exc)}"
            if api_key:  # provider messages sometimes echo the key back
                last = last.replace(api_key, "***")
            if not _retryable(exc, status) or attempt == retry.attempts - 1:
                break
            time.sleep(retry.delay(attempt, _retry_after(exc)))
    return None, f"{last} [after {attempt + 1} attempt(s)]"


def _retryable(exc: Exception, status: Any) -> bool:
    if isinstance(status, int):
        return status in _RETRY_STATUS or status >= 500
    name = type(exc).__name__
    return any(word in name for word in ("Timeout", "Connection", "RateLimit", "ServiceUnavailable"))


def _retry_after(exc: Exception) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    try:
        return float(headers.get("retry-after") or "")
    except (TypeError, ValueError):
        return None


def _cost(response: Any) -> float | None:
    """The call's price from litellm's price data; None for a model it has no price for."""
    try:
        cost = litellm_module().completion_cost(completion_response=response)
    except Exception:  # unmapped model: the cost is unknown, not zero
        return None
    return float(cost) if cost is not None else None


def _lookup(cache: CallCache, key: str) -> dict[str, Any] | None:
    try:
        record = cache.get(key)
    except Exception as exc:  # a broken cache costs a call, not the summary
        warnings.warn(f"LLM cache lookup failed: {exc}", stacklevel=3)
        return None
    return record if record and not record.get("error") and record.get("response") is not None else None


def _store(cache: CallCache, key: str, record: dict[str, Any]) -> None:
    try:
        cache.put(key, record)
    except Exception as exc:
        warnings.warn(f"LLM cache write failed: {exc}", stacklevel=3)


def _failed(model: str | None, error: str, latency: float | None = None, key: str | None = None) -> CallResult:
    return CallResult("", None, None, None, latency, model, False, error, key)


def _public_url(url: str | None) -> str | None:
    """The base URL without credentials in its user-info part."""
    if not url:
        return None
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def _first_line(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else "")[:300]
