"""Prices read from litellm's bundled map, the documented cache defaults per model, and the
summarizer's own calls."""

from __future__ import annotations

import re

import pytest

from ctxlab.cost import (
    Alias,
    UnknownModelError,
    default_cache_model,
    find_alias,
    get_prices,
    price_model,
    price_summary,
    price_usage,
    provider_family,
)
from ctxlab.cost.aliases import BEDROCK_WHY
from ctxlab.errors import CtxlabError
from ctxlab.models import model_map
from ctxlab.summarize.base import SummaryResult
from tests.cost.sessions import PM, RATES


def test_anthropic_prices_follow_the_documented_cache_multipliers():
    rates = get_prices("claude-sonnet-4-5").base
    assert rates.input > 0 and rates.output > rates.input
    assert rates.cache_read == pytest.approx(0.1 * rates.input)
    assert rates.cache_write == pytest.approx(1.25 * rates.input)
    hour = get_prices("claude-sonnet-4-5", default_cache_model("claude-sonnet-4-5", lifetime_s=3600)).base
    assert hour.cache_write == pytest.approx(2 * rates.input) and hour.cache_read == rates.cache_read


def test_openai_prices_discount_reads_and_charge_no_write_premium():
    rates = get_prices("gpt-4o").base
    assert 0 < rates.cache_read < rates.input and rates.cache_write == rates.input


def test_a_provider_prefix_is_accepted():
    assert get_prices("anthropic/claude-sonnet-4-5").base == get_prices("claude-sonnet-4-5").base


def test_long_prompts_use_the_long_context_tier_for_the_whole_call():
    prices = get_prices("gemini/gemini-2.5-pro")
    assert prices.rates(200_000) == prices.base
    long = prices.rates(200_001)
    assert long.input > prices.base.input and long.output > prices.base.output


def test_an_unknown_model_is_a_clear_error_naming_close_models():
    with pytest.raises(UnknownModelError, match=r"unknown model 'claude-opus-4\.6'.*close names: .*claude-opus-4-6"):
        price_model("claude-opus-4.6")
    assert issubclass(UnknownModelError, CtxlabError)


def test_claude_sonnet_4_is_priced_at_anthropics_list_price_under_its_bedrock_name():
    """docs.anthropic.com/en/docs/about-claude/pricing: Claude Sonnet 4 costs $3 / MTok input, $3.75
    5-minute and $6 1-hour cache writes, $0.30 cache hits, $15 output; $6 / $22.50 over 200K tokens."""
    mtok = 1e-6
    prices = get_prices("claude-sonnet-4-20250514")
    assert prices.base == pytest.approx((3 * mtok, 0.30 * mtok, 3.75 * mtok, 15 * mtok))
    assert prices.alias == Alias("claude-sonnet-4-20250514", "anthropic.claude-sonnet-4-20250514-v1:0", BEDROCK_WHY)
    long = prices.rates(200_001)
    assert (long.input, long.output) == pytest.approx((6 * mtok, 22.5 * mtok))
    hour = get_prices("anthropic/claude-sonnet-4-20250514",
                      default_cache_model("claude-sonnet-4-20250514", lifetime_s=3600)).base
    assert hour.cache_write == pytest.approx(6 * mtok)
    assert get_prices("claude-sonnet-4-5").alias is None and find_alias("claude-sonnet-4-5") is None


def test_the_bedrock_rule_holds_for_every_claude_model_priced_under_both_names():
    """The alias rule's premise, checked on the bundled map: where litellm prices a dated Claude API
    id and its base Bedrock name, both carry the same rates."""
    both = [name for name, entry in model_map().items() if isinstance(entry, dict)
            and entry.get("litellm_provider") == "anthropic" and re.fullmatch(r"claude-[a-z0-9-]+-\d{8}", name)
            and f"anthropic.{name}-v1:0" in model_map()]
    assert len(both) >= 3  # haiku-4-5, sonnet-4-5, opus-4-5 in litellm 1.106.2
    for name in both:
        assert get_prices(name).base == get_prices(f"anthropic.{name}-v1:0").base, name


@pytest.mark.parametrize("model", ["claude-sonnet-9-20990101", "claude-sonnet-4", "us.claude-sonnet-4-20250514"])
def test_names_without_a_documented_alias_stay_unknown(model):
    assert find_alias(model) is None
    with pytest.raises(UnknownModelError, match="unknown model"):
        get_prices(model)


def test_a_known_model_without_an_input_price_says_so(monkeypatch):
    monkeypatch.setattr("ctxlab.cost.prices.model_info", lambda model: {"max_input_tokens": 1000})
    with pytest.raises(UnknownModelError, match="has model 'embedder' but no input price"):
        get_prices("embedder")


@pytest.mark.parametrize(("model", "family", "minimum", "increment"), [
    ("claude-opus-4-6", "anthropic", 4096, 1),
    ("claude-haiku-4-5", "anthropic", 4096, 1),
    ("claude-sonnet-4-5", "anthropic", 1024, 1),
    ("anthropic/claude-sonnet-4.6", "anthropic", 2048, 1),
    ("claude-3-5-haiku-20241022", "anthropic", 2048, 1),
    ("gpt-4o", "openai", 1024, 128),
    ("openai/gpt-5", "openai", 1024, 128),
    ("gemini/gemini-2.5-flash", "gemini", 2048, 1),
    ("deepseek/deepseek-chat", "none", 0, 1),
])
def test_default_cache_models_carry_the_documented_minimums(model, family, minimum, increment):
    cache = default_cache_model(model)
    assert (provider_family(model), cache.family, cache.min_tokens, cache.increment) == (
        family, family, minimum, increment)
    assert cache.lifetime_s == 300 and cache.write_premium == (1.25 if family == "anthropic" else 1.0)


def test_the_one_hour_anthropic_cache_doubles_the_write_premium():
    assert default_cache_model("claude-sonnet-4-5", lifetime_s=3600).write_premium == 2.0


def test_a_summary_is_priced_from_its_recorded_usage_else_its_prompt_and_cap():
    recorded = SummaryResult("summary", input_tokens=3000, output_tokens=200, model="m")
    assert price_summary(PM, recorded, prompt_tokens=9, max_tokens=9) == price_usage(PM, 3000, 200)
    assert price_usage(PM, 3000, 200).cost_usd == pytest.approx(3000 * RATES.input + 200 * RATES.output)
    unrecorded = SummaryResult("summary", model="m")
    assert price_summary(PM, unrecorded, prompt_tokens=1000, max_tokens=500) == price_usage(PM, 1000, 500)
    with pytest.raises(CtxlabError, match="without its recorded usage"):
        price_summary(PM, unrecorded)
