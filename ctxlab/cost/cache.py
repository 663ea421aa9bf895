"""How a provider's prompt cache behaves: `CacheModel` and the default model for a model name.

Sources (read 2026-11; details and quotes in docs/cost.md):
- Anthropic, platform.claude.com/docs/en/build-with-claude/prompt-caching: explicit
  ``cache_control`` breakpoints; a prefix (tools -> system -> messages) is cached up to a
  breakpoint; lifetime 5 minutes (``ttl: "1h"`` for one hour), refreshed on every hit; writes cost
  1.25x the input price (2x for one hour), reads 0.1x; a hit is looked for at most about 20 content
  blocks before a breakpoint; minimum cacheable prefix per model (table below).
- OpenAI, developers.openai.com/api/docs/guides/prompt-caching and the "Prompt Caching 201"
  cookbook: automatic for prompts of 1024 tokens or more, cached tokens in 128-token increments,
  no write fee, evicted after 5-10 minutes of inactivity (at most one hour in memory).
- Gemini, ai.google.dev/gemini-api/docs/caching: implicit caching on 2.5 and newer, minimum 2048
  tokens (2.5) or 4096 (3.x), no write fee, lifetime not documented.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from ctxlab.errors import CtxlabError
from ctxlab.models import model_info

Family = Literal["anthropic", "openai", "gemini", "none"]
Breakpoints = Literal["last_message", "system_and_last_message"]

FIVE_MINUTES = 300.0
ONE_HOUR = 3600.0

# Anthropic's minimum cacheable prefix, by model (first match wins; else 1024): the prompt-caching
# page as quoted in anthropics/anthropic-sdk-python issue #1194 and docs.orq.ai, and LiteLLM's
# prompt-caching page for Opus 4.7 and the 5-series (docs/cost.md lists them).
_ANTHROPIC_MINIMUMS = ((re.compile(r"(opus|fable|mythos)-5"), 512),
                       (re.compile(r"opus-4-[5-7]|haiku-4-5"), 4096),
                       (re.compile(r"sonnet-4-6|haiku-3|3-5-haiku|3-haiku"), 2048))
_GEMINI_MINIMUMS = ((re.compile(r"gemini-[3-9]"), 4096),)


@dataclass(frozen=True, slots=True)
class CacheModel:
    """The prompt cache of one provider, as ctxlab predicts it.

    Attributes:
        family: ``anthropic`` (explicit breakpoints, paid writes), ``openai`` and ``gemini``
            (automatic prefix caching, free writes), or ``none`` (no cache: every token is input).
        lifetime_s: seconds a cached prefix survives without use (Anthropic refreshes it on every
            hit). A call more than this after the previous call of its session reads nothing.
        min_tokens: the shortest prefix the provider caches. Anthropic: the prefix up to a
            breakpoint; OpenAI and Gemini: the shared prefix.
        breakpoints: Anthropic only. ``last_message``: one breakpoint on the last message of each
            call, so a call can read the whole previous prompt or nothing; ``system_and_last_message``
            (pi, Claude Code): also one after the tools and leading system messages, so a call whose
            messages changed still reads the tools and system prompt.
        increment: cached tokens count in multiples of this (OpenAI 128; 1 elsewhere).
        write_premium: price of a cache write as a multiple of the input price, used only when the
            price map has no cache-write price (Anthropic 1.25 for 5 minutes, 2.0 for one hour).
        lookback_blocks: Anthropic only: a previous prompt more than this many content blocks before
            the new breakpoint is not found (None: no limit). A replay step that stands for several
            real calls (one step per user turn) should pass None.
    """

    family: Family = "anthropic"
    lifetime_s: float = FIVE_MINUTES
    min_tokens: int = 1024
    breakpoints: Breakpoints = "system_and_last_message"
    increment: int = 1
    write_premium: float = 1.25
    lookback_blocks: int | None = 20

    def __post_init__(self) -> None:
        problems = [
            f"family must be one of {', '.join(get_args(Family))}" if self.family not in get_args(Family) else "",
            f"breakpoints must be one of {', '.join(get_args(Breakpoints))}"
            if self.breakpoints not in get_args(Breakpoints) else "",
            "lifetime_s must be positive" if not self.lifetime_s > 0 else "",
            "min_tokens must be >= 0" if self.min_tokens < 0 else "",
            "increment must be >= 1" if self.increment < 1 else "",
            "write_premium must be >= 0" if self.write_premium < 0 else "",
            "lookback_blocks must be >= 1 or None" if self.lookback_blocks is not None and self.lookback_blocks < 1
            else "",
        ]
        if any(problems):
            raise CtxlabError(f"invalid cache model: {'; '.join(p for p in problems if p)}")

    @property
    def explicit(self) -> bool:
        """True when the prompt is cached at breakpoints (Anthropic), not at any shared prefix."""
        return self.family == "anthropic"


def provider_family(model: str) -> Family:
    """The cache family of a model name (litellm's provider where the name is ambiguous)."""
    name = _normal(model)
    provider = str((model_info(model) or {}).get("litellm_provider") or "")
    if "claude" in name:
        return "anthropic"
    if "gemini" in name:
        return "gemini"
    if provider.startswith(("openai", "azure", "text-completion-openai")) or re.match(r"(gpt-|o[1-9]\b|o[1-9]-)", name):
        return "openai"
    return "none"


def default_cache_model(model: str, *, lifetime_s: float = FIVE_MINUTES) -> CacheModel:
    """The documented cache behaviour of `model` (a litellm name such as ``claude-sonnet-4-5``).

    `lifetime_s` of one hour selects Anthropic's 1-hour cache (writes at 2x the input price).
    Unknown providers get family ``none``.
    """
    family = provider_family(model)
    name = _normal(model)
    if family == "anthropic":
        premium = 2.0 if lifetime_s > FIVE_MINUTES else 1.25
        return CacheModel("anthropic", lifetime_s, _minimum(name, _ANTHROPIC_MINIMUMS, 1024), write_premium=premium)
    if family == "openai":
        return CacheModel("openai", lifetime_s, 1024, increment=128, write_premium=1.0, lookback_blocks=None)
    if family == "gemini":
        return CacheModel("gemini", lifetime_s, _minimum(name, _GEMINI_MINIMUMS, 2048), write_premium=1.0,
                          lookback_blocks=None)
    return CacheModel("none", lifetime_s, 0, write_premium=1.0, lookback_blocks=None)


def _minimum(name: str, table: tuple[tuple[re.Pattern[str], int], ...], default: int) -> int:
    return next((minimum for pattern, minimum in table if pattern.search(name)), default)


def _normal(model: str) -> str:
    """``anthropic/claude-opus-4.6`` -> ``claude-opus-4-6`` (the last path part, dots as dashes)."""
    return model.rsplit("/", 1)[-1].lower().replace(".", "-")
