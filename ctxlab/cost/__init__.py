"""What a session costs with prompt caching: cache models, prices, and per-call pricing.

    from ctxlab.cost import Prompt, price_model, price_prompts
    pm = price_model("claude-sonnet-4-5")            # litellm's bundled prices + documented cache
    session = price_prompts(pm, "o200k_base", [Prompt(messages, tools, output_tokens=200), ...])
    session.total.cost_usd, session.calls[0].cache_write_tokens

Per turn (a replay): ``cost, state = price_call(pm, counter, prompt, state)``. Recorded agent
logs: ``check_session(conversation, pm)`` prices each call as recorded and as predicted.
See docs/cost.md for the model, its sources and its simplifications.
"""

from ctxlab.cost.aliases import Alias, find_alias
from ctxlab.cost.cache import CacheModel, default_cache_model, provider_family
from ctxlab.cost.calls import (
    CacheState,
    CallCost,
    Observation,
    Prompt,
    SessionCost,
    bill,
    observe,
    price_call,
    price_prompts,
    total,
)
from ctxlab.cost.checks import ESTIMATED, CallCheck, SessionCheck, combined
from ctxlab.cost.logs import Unpriced, check_logs, check_session
from ctxlab.cost.prices import PriceModel, Prices, Rates, UnknownModelError, get_prices, input_price, price_model
from ctxlab.cost.split import Match, Split, split
from ctxlab.cost.summaries import price_summary, price_usage

__all__ = ["ESTIMATED", "Alias", "CacheModel", "CacheState", "CallCheck", "CallCost", "Match", "Observation", "PriceModel",
           "Prices", "Prompt", "Rates", "SessionCheck", "SessionCost", "Split", "UnknownModelError", "Unpriced",
           "bill", "check_logs", "check_session", "combined", "default_cache_model", "find_alias", "get_prices", "input_price",
           "observe", "price_call", "price_model", "price_prompts", "price_summary", "price_usage", "provider_family",
           "split", "total"]
