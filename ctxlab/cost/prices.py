"""Token prices from litellm's bundled model map, offline, and `PriceModel` (prices + cache model).

The map is read as a file through `ctxlab.models.model_map` (the JSON the litellm wheel ships,
``model_prices_and_context_window_backup.json``), so pricing neither imports litellm nor fetches
its remote map. Keys used (litellm 1.106.2): ``input_cost_per_token``, ``output_cost_per_token``,
``cache_read_input_token_cost``, ``cache_creation_input_token_cost`` (5-minute writes),
``cache_creation_input_token_cost_above_1hr`` (1-hour writes), and the long-context tiers
``<key>_above_<N>k_tokens`` that apply to a whole call once its prompt exceeds N thousand tokens.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from ctxlab.cost.aliases import Alias, find_alias, priced
from ctxlab.cost.aliases import is_rate as _number
from ctxlab.cost.cache import FIVE_MINUTES, CacheModel, default_cache_model
from ctxlab.errors import CtxlabError
from ctxlab.models import model_info, model_map

_TIER = re.compile(r"^input_cost_per_token_above_(\d+)k_tokens$")


class UnknownModelError(CtxlabError):
    """A model litellm's price map does not price; names the closest models it does."""


class Rates(NamedTuple):
    """USD per token of each kind of token in one call."""

    input: float
    cache_read: float
    cache_write: float
    output: float


@dataclass(frozen=True, slots=True)
class Prices:
    """A model's rates: `base`, and `tiers` ``(threshold, rates)`` for prompts above a threshold;
    `alias` when litellm's map prices the model under another name (`ctxlab.cost.aliases`)."""

    model: str
    base: Rates
    tiers: tuple[tuple[int, Rates], ...] = ()
    alias: Alias | None = None

    def rates(self, prompt_tokens: int) -> Rates:
        """The rates of a call whose whole prompt (cached or not) has `prompt_tokens` tokens."""
        above = [rates for threshold, rates in self.tiers if prompt_tokens > threshold]
        return above[-1] if above else self.base


@dataclass(frozen=True, slots=True)
class PriceModel:
    """What pricing a call needs: the model name, its cache behaviour and its prices."""

    name: str
    cache: CacheModel
    prices: Prices


def price_model(model: str, cache: CacheModel | None = None) -> PriceModel:
    """Prices and the default cache model of `model` (``claude-sonnet-4-5``, ``openai/gpt-4o``...).

    Raises:
        UnknownModelError: litellm's map has no input price for it.
    """
    cache = cache or default_cache_model(model)
    return PriceModel(model, cache, get_prices(model, cache))


def input_price(model: str) -> float:
    """USD per uncached input token of `model`: what refetching a lost token costs.

    Raises:
        UnknownModelError: litellm's map has no input price for it.
    """
    return price_model(model).prices.base.input


def get_prices(model: str, cache: CacheModel | None = None) -> Prices:
    """The model's rates; cache writes priced for `cache`'s lifetime (1-hour writes above 5 minutes).

    A missing cache-read price means no discount known (reads at the input price); a missing
    cache-write price is the input price times ``cache.write_premium``.

    A model the map lacks under its own name is priced by the entry of the same model
    (`ctxlab.cost.aliases`; the returned `Prices.alias` says which).

    Raises:
        UnknownModelError: litellm's map has no input price for it, under any name.
    """
    return _prices(model, cache or default_cache_model(model))


@functools.lru_cache(maxsize=256)
def _prices(model: str, cache: CacheModel) -> Prices:
    info, alias = model_info(model), find_alias(model)
    if alias is not None:
        info = model_info(alias.entry)
    if info is None or not priced(info):
        raise UnknownModelError(_unknown(model, info))
    long_writes = cache.lifetime_s > FIVE_MINUTES
    tiers = sorted(int(m.group(1)) for m in map(_TIER.match, info) if m)
    return Prices(model, _rates(info, "", long_writes, cache.write_premium),
                  tuple((t * 1000, _rates(info, f"_above_{t}k_tokens", long_writes, cache.write_premium))
                        for t in tiers), alias)


def _rates(info: dict[str, Any], suffix: str, long_writes: bool, premium: float) -> Rates:
    """The rates of one tier (`suffix` ``""`` or ``_above_200k_tokens``); base values fill gaps."""

    def rate(key: str, fallback: float) -> float:
        value = info.get(key + suffix) if suffix else None
        value = value if _number(value) else info.get(key)
        return float(value) if _number(value) else fallback  # type: ignore[arg-type]  # a number, checked

    input_rate = rate("input_cost_per_token", 0.0)
    write_key = "cache_creation_input_token_cost_above_1hr" if long_writes else "cache_creation_input_token_cost"
    write = info.get(write_key) if long_writes else rate(write_key, input_rate * premium)
    return Rates(input_rate, rate("cache_read_input_token_cost", input_rate),
                 float(write) if _number(write) else input_rate * premium,  # type: ignore[arg-type]
                 rate("output_cost_per_token", 0.0))


def _unknown(model: str, info: dict[str, Any] | None) -> str:
    if info is not None:
        return f"litellm's price map has model {model!r} but no input price for it"
    names = [name for name, entry in model_map().items() if priced(entry)]
    close = difflib.get_close_matches(model, names, n=5, cutoff=0.5) or difflib.get_close_matches(
        model.rsplit("/", 1)[-1], names, n=5, cutoff=0.5)
    hint = f"; close names: {', '.join(close)}" if close else ""
    return f"unknown model {model!r}: litellm's bundled price map has no price for it{hint}"
