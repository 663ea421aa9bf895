"""The cache arithmetic of one call: how its prompt splits into uncached input, cache read and
cache write, given what it shares with the previous call of its session.

Both pricing paths end here: `ctxlab.cost.calls` (prompts counted by a token counter, per turn or
per call) and `ctxlab.cost.logs` (prompt sizes the provider recorded). Only the previous call is
compared, so a session is priced in one pass and a replay can price turn by turn.
"""

from __future__ import annotations

from typing import NamedTuple

from ctxlab.cost.cache import CacheModel
from ctxlab.cost.prices import Prices


class Match(NamedTuple):
    """What a call shares with the previous call of its session (same model).

    Attributes:
        previous_tokens: the previous prompt's size: what its last breakpoint cached.
        whole_previous: the previous prompt is a prefix of this one (tools and messages equal) and,
            for Anthropic, near enough to the new breakpoint to be found (`CacheModel.lookback_blocks`).
        shared_tokens: tokens of the longest prefix both prompts share in whole messages.
        system_tokens: tokens up to the end of the leading system messages when both prompts share
            them (and they exist), else 0: what a breakpoint after the system prompt cached.
        gap_s: seconds since the previous call (None when either time is unknown).
    """

    previous_tokens: int
    whole_previous: bool
    shared_tokens: int
    system_tokens: int
    gap_s: float | None = None


class Split(NamedTuple):
    """One call's prompt tokens by how they are billed: input + cache_read + cache_write = prompt."""

    input: int
    cache_read: int
    cache_write: int


def is_fresh(model: CacheModel, gap_s: float | None) -> bool:
    """Whether a cache entry written `gap_s` seconds ago is still alive (unknown times: assumed so)."""
    return gap_s is None or gap_s <= model.lifetime_s


def split(model: CacheModel, prompt_tokens: int, match: Match | None) -> Split:
    """Split a call of `prompt_tokens` tokens (`match` None: the first call of its session).

    Anthropic: the read is the longest live entry the previous call left that prefixes this prompt
    (its whole prompt, else its system prompt when there is a breakpoint there), each only if it
    reached the minimum; the rest of the prompt up to the breakpoint on the last message is written
    when the prompt reaches the minimum. OpenAI and Gemini: the shared prefix is read when it
    reaches the minimum, rounded down to the increment; nothing is written at a premium.
    """
    if model.family == "none" or prompt_tokens <= 0:
        return Split(max(prompt_tokens, 0), 0, 0)
    read = _read(model, match) if match is not None and is_fresh(model, match.gap_s) else 0
    read = min(read, prompt_tokens)
    write = prompt_tokens - read if model.explicit and prompt_tokens >= model.min_tokens else 0
    return Split(prompt_tokens - read - write, read, write)


def _read(model: CacheModel, match: Match) -> int:
    if not model.explicit:
        shared = match.shared_tokens
        return shared // model.increment * model.increment if shared >= model.min_tokens else 0
    if match.whole_previous and match.previous_tokens >= model.min_tokens:
        return match.previous_tokens
    if model.breakpoints == "system_and_last_message" and match.system_tokens >= model.min_tokens:
        return match.system_tokens
    return 0


def split_cost(prices: Prices, parts: Split, output_tokens: int) -> float:
    """USD of a call billed as `parts` plus `output_tokens` (the tier is chosen by the whole prompt)."""
    rates = prices.rates(sum(parts))
    return (parts.input * rates.input + parts.cache_read * rates.cache_read
            + parts.cache_write * rates.cache_write + output_tokens * rates.output)
