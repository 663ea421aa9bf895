"""`llm`: summaries written by any model litellm supports (OpenAI, Anthropic, Ollama, vLLM, any
OpenAI-compatible base URL), cached and retried (`ctxlab.summarize.client`).

The messages are serialized to a transcript first (`serialize`), then wrapped in the chosen
prompt: ``structured`` (pi-mono's sectioned checkpoint; with a previous summary, the UPDATE
prompt that merges it) or ``seed001`` (seed 001's Chinese prompt, verbatim). The structured
summary gets pi-mono's ``<read-files>``/``<modified-files>`` lists appended, carried forward from
the previous summary, so file paths survive repeated compactions verbatim. A summary longer than
`max_tokens` is clipped (seed 001's "摘要也超过限制" case).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ctxlab.messages import Message
from ctxlab.summarize import prompts
from ctxlab.summarize.base import SummaryResult
from ctxlab.summarize.cache import CallCache, open_cache
from ctxlab.summarize.client import Endpoint, Retry, complete
from ctxlab.summarize.message import unwrap
from ctxlab.summarize.sections import MODIFIED, READ, file_lists_block, parse_summary
from ctxlab.summarize.serialize import TOOL_OUTPUT_TOKENS, serialize
from ctxlab.summarize.toolcalls import file_operations
from ctxlab.tokens import TokenCounter
from ctxlab.tokens.clip import clip_to_tokens

_DEFAULTS = {"prompt": "structured", "temperature": 0.0, "tool_output_tokens": TOOL_OUTPUT_TOKENS}


@dataclass(frozen=True)
class LLMSummarizer:
    """Summarizes with an LLM through litellm.

    Attributes:
        model: a litellm model name (``openai/gpt-4o-mini``, ``anthropic/claude-3-5-haiku-latest``,
            ``ollama/llama3``); default env ``CTXLAB_LLM_MODEL``.
        prompt: ``structured`` (default) or ``seed001``.
        api_base: a base URL (env ``CTXLAB_LLM_API_BASE``), e.g. a local vLLM server.
        api_key: the key (env ``CTXLAB_LLM_API_KEY``, else litellm's provider variables); used for
            the call only, never stored or shown.
        temperature: sampling temperature (0 for reproducible summaries).
        tool_output_tokens: each tool output in the transcript is clipped head+tail to this.
        attempts, base_delay, max_delay: retry policy on 429/5xx/timeouts.
        timeout: seconds per request.
        cache: a `CallCache`, ``"memory"``, ``"off"``, a DuckDB path, or None for the shared file.
    """

    model: str | None = None
    prompt: str = "structured"
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False, compare=False)
    temperature: float = 0.0
    tool_output_tokens: int = TOOL_OUTPUT_TOKENS
    attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 20.0
    timeout: float = 120.0
    cache: CallCache | str | None = field(default=None, repr=False, compare=False)

    kind = "llm"

    def __post_init__(self) -> None:
        if self.prompt not in prompts.PROMPTS:
            raise ValueError(f"unknown prompt {self.prompt!r}; valid: {', '.join(prompts.PROMPTS)}")

    @property
    def name(self) -> str:
        """Spec string with the resolved model and base URL (never the key)."""
        ep = self.endpoint
        params = {"model": ep.model, "api_base": ep.api_base, "prompt": self.prompt,
                  "temperature": self.temperature, "tool_output_tokens": self.tool_output_tokens}
        shown = [f"{k}={v}" for k, v in params.items() if v is not None and _DEFAULTS.get(k) != v]
        return self.kind + (":" + ",".join(shown) if shown else "")

    @cached_property
    def endpoint(self) -> Endpoint:
        return Endpoint(self.model, self.api_base, self.api_key, self.timeout).resolve()

    @cached_property
    def calls(self) -> CallCache:
        return open_cache(self.cache)

    def summarize(self, messages: Sequence[Message], *, previous_summary: str | None = None,
                  counter: TokenCounter, max_tokens: int) -> SummaryResult:
        earlier = [previous_summary] if previous_summary else []
        earlier += [unwrap(m.text) for m in messages if m.mark == "summary"]
        fresh = [m for m in messages if m.mark != "summary"]
        previous = "\n\n".join(earlier) or None
        transcript = serialize(fresh, counter=counter, tool_output_tokens=self.tool_output_tokens)
        name, template, chat = self._request(transcript, previous)
        result = self._call(name, template, chat, max_tokens)
        if not result.ok:
            return result
        block = _file_block(fresh, previous) if self.prompt == "structured" else ""
        return _with_text(result, _fit(result.text.strip(), block, counter, max_tokens))

    def summarize_turn_prefix(self, messages: Sequence[Message], *, counter: TokenCounter,
                              max_tokens: int) -> SummaryResult:
        """pi-mono's split-turn summary of the part of a turn that is cut away."""
        transcript = serialize(messages, counter=counter, tool_output_tokens=self.tool_output_tokens)
        chat = [{"role": "system", "content": prompts.SYSTEM_PROMPT},
                {"role": "user", "content": f"<conversation>\n{transcript}\n</conversation>\n\n"
                                            f"{prompts.TURN_PREFIX_PROMPT}"}]
        result = self._call("turn_prefix", prompts.TURN_PREFIX_PROMPT, chat, max_tokens)
        return _with_text(result, _fit(result.text.strip(), "", counter, max_tokens)) if result.ok else result

    def _request(self, transcript: str, previous: str | None) -> tuple[str, str, list[dict[str, str]]]:
        """(prompt name, prompt template, chat messages) for the configured prompt."""
        if self.prompt == "seed001":
            if previous:
                template = prompts.SEED001_UPDATE_PROMPT
                text = template.format(previous_summary=previous, conversation_history=transcript)
                return "seed001_update", template, [{"role": "user", "content": text}]
            template = prompts.SEED001_PROMPT
            return "seed001", template, [{"role": "user", "content": template.format(conversation_history=transcript)}]
        body = f"<conversation>\n{transcript}\n</conversation>\n\n"
        if previous:
            body += f"<previous-summary>\n{previous}\n</previous-summary>\n\n{prompts.UPDATE_PROMPT}"
            name, template = "structured_update", prompts.UPDATE_PROMPT
        else:
            body += prompts.STRUCTURED_PROMPT
            name, template = "structured", prompts.STRUCTURED_PROMPT
        return name, template, [{"role": "system", "content": prompts.SYSTEM_PROMPT},
                                {"role": "user", "content": body}]

    def _call(self, name: str, template: str, chat: list[dict[str, str]], max_tokens: int) -> SummaryResult:
        retry = Retry(self.attempts, self.base_delay, self.max_delay)
        params: dict[str, Any] = {"temperature": self.temperature, "max_tokens": max(16, int(max_tokens))}
        r = complete(chat, endpoint=self.endpoint, prompt_name=name, prompt_text=template, params=params,
                     cache=self.calls, retry=retry)
        error = r.error or (None if r.text.strip() else "the model returned an empty summary")
        return SummaryResult(r.text, r.input_tokens, r.output_tokens, r.cost_usd, r.latency_ms, r.model,
                             r.cached, error)


def _file_block(messages: Sequence[Message], previous: str | None) -> str:
    """Read and modified files of this region plus those the previous summary listed."""
    read, modified = file_operations(messages)
    if previous:
        earlier = parse_summary(previous)
        read = earlier.get(READ, []) + read
        modified = earlier.get(MODIFIED, []) + modified
    return file_lists_block(read, modified)


def _fit(text: str, block: str, counter: TokenCounter, max_tokens: int) -> str:
    """`text` plus the file block within `max_tokens`; the model's text is clipped first, and the
    block is left out when it would take more than half the room."""
    block_tokens = counter.count(block) + 2 if block else 0
    if block and block_tokens > max_tokens // 2:
        block, block_tokens = "", 0
    room = max_tokens - block_tokens
    if counter.count(text) > room:
        text = clip_to_tokens(text, room, counter, head_share=1.0)
    return f"{text}\n\n{block}" if block else text


def _with_text(result: SummaryResult, text: str) -> SummaryResult:
    return SummaryResult(text, result.input_tokens, result.output_tokens, result.cost_usd,
                         result.latency_ms, result.model, result.cached, result.error)
