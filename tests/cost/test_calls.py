"""Hand-built sessions priced call by call: what each call reads from the cache, writes to it,
and pays, worked out from how the session was built (tests/cost/sessions.py)."""

from __future__ import annotations

import pytest

from ctxlab.cost import CacheModel, Match, Prompt, price_call, price_prompts, split, total
from ctxlab.errors import CtxlabError
from tests.cost.sessions import PM, RATES, WORDS, msg, pricing, system, tool_round

SYSTEM = 2000


def history() -> list:
    """System (2000) + a user message (500) + rounds of one call (1 token) and a 300-token result."""
    return [system(SYSTEM), msg("u1", 500)] + [m for n in range(1, 9) for m in tool_round(n, 300)]


def grow(lengths: list[int], pm=PM, **prompt) -> list:
    """Calls whose prompts are the first `n` messages of `history()`: an append-only session."""
    messages = history()
    return list(price_prompts(pm, WORDS, [Prompt(messages[:n], **prompt) for n in lengths]).calls)


def test_append_only_every_call_reads_the_previous_prompt_and_writes_the_rest():
    calls = grow([2, 4, 6, 8])
    prompts = [SYSTEM + 500 + 301 * k for k in range(4)]
    assert [c.prompt_tokens for c in calls] == prompts
    assert [c.cache_read_tokens for c in calls] == [0, *prompts[:-1]]
    assert [c.cache_write_tokens for c in calls] == [prompts[0], 301, 301, 301]
    assert all(c.input_tokens == 0 for c in calls)


def test_a_call_costs_its_reads_writes_input_and_output_at_the_model_rates():
    first, second = grow([2, 4], output_tokens=40)
    assert first.cost_usd == pytest.approx(2500 * RATES.cache_write + 40 * RATES.output)
    assert second.cost_usd == pytest.approx(2500 * RATES.cache_read + 301 * RATES.cache_write + 40 * RATES.output)
    session = price_prompts(PM, WORDS, [Prompt(history()[:n], output_tokens=40) for n in (2, 4)])
    assert session.total == total([first, second]) and session.total.cost_usd == pytest.approx(
        first.cost_usd + second.cost_usd)


def compaction_session(pm):
    before = history()[:6]
    summary = [system(SYSTEM), msg("summary", 600), msg("u3", 50)]
    after = summary + tool_round(9, 300)
    return price_prompts(pm, WORDS, [Prompt(m) for m in (before[:4], before, summary, after)]).calls


def test_a_compaction_reads_the_system_prompt_and_writes_from_the_summary_on():
    calls = compaction_session(PM)
    assert (calls[2].cache_read_tokens, calls[2].cache_write_tokens) == (SYSTEM, 650)
    assert (calls[3].cache_read_tokens, calls[3].cache_write_tokens) == (SYSTEM + 650, 301)


def test_without_a_system_breakpoint_a_compaction_writes_the_whole_prompt():
    calls = compaction_session(pricing(breakpoints="last_message"))
    assert (calls[2].cache_read_tokens, calls[2].cache_write_tokens) == (0, SYSTEM + 650)


def test_openai_reads_the_shared_prefix_of_a_compacted_prompt_in_128_token_steps():
    calls = compaction_session(pricing("openai"))
    assert calls[2].cache_read_tokens == SYSTEM // 128 * 128 and calls[2].cache_write_tokens == 0
    assert calls[2].input_tokens == SYSTEM + 650 - calls[2].cache_read_tokens


def masked_prompts(calls: int) -> list[Prompt]:
    """Call j keeps rounds 1..4+j and masks the tool results of rounds 1..j (1 token each)."""
    messages, prompts = history(), []
    for j in range(calls):
        kept = messages[:2 + 2 * (4 + j)]
        prompts.append(Prompt([m.with_text("[masked]") if m.role == "tool" and m.id <= f"rc{j}_0" else m
                               for m in kept]))
    return prompts


def test_masking_that_moves_every_turn_reads_only_the_system_prompt_on_anthropic():
    masked = price_prompts(PM, WORDS, masked_prompts(5)).calls
    assert [c.cache_read_tokens for c in masked[1:]] == [SYSTEM] * 4
    plain = grow([2 + 2 * (4 + j) for j in range(5)])
    # Fewer tokens, yet dearer: every call rewrites the cache from the first masked result on.
    assert sum(c.prompt_tokens for c in masked) < sum(c.prompt_tokens for c in plain)
    assert total(masked).cost_usd > total(plain).cost_usd


def test_masking_that_moves_every_turn_reads_up_to_the_masked_result_on_openai():
    masked = price_prompts(pricing("openai"), WORDS, masked_prompts(5)).calls
    # Call j shares the system prompt, u1, j - 1 masked rounds (2 tokens each) and round j's call.
    shared = [SYSTEM + 500 + 2 * (j - 1) + 1 for j in range(1, 5)]
    assert [c.cache_read_tokens for c in masked[1:]] == [s // 128 * 128 for s in shared]


def test_a_gap_longer_than_the_lifetime_reads_nothing():
    times = [0.0, 100.0, 401.0, 700.0]  # 301 s before the third call: the 5-minute cache expired
    messages = history()
    prompts = [Prompt(messages[:n], timestamp=t) for n, t in zip((2, 4, 6, 8), times, strict=True)]
    calls = price_prompts(PM, WORDS, prompts).calls
    assert [c.cache_read_tokens for c in calls] == [0, 2500, 0, 2500 + 2 * 301]
    assert calls[2].cache_write_tokens == calls[2].prompt_tokens
    hour = price_prompts(pricing(lifetime_s=3600), WORDS, prompts).calls
    assert hour[2].cache_read_tokens == 2801


def test_message_timestamps_date_a_call_when_the_prompt_has_no_time():
    first = [system(SYSTEM), msg("u1", 500, timestamp=1000.0)]
    late = [*first, msg("u2", 10, timestamp=1000.0 + 301)]
    soon = [*first, msg("u2", 10, timestamp=1000.0 + 299)]
    assert price_prompts(PM, WORDS, [Prompt(first), Prompt(late)]).calls[1].cache_read_tokens == 0
    assert price_prompts(PM, WORDS, [Prompt(first), Prompt(soon)]).calls[1].cache_read_tokens == 2500


def test_a_prompt_under_the_minimum_is_neither_written_nor_read_later():
    small = [system(400), msg("u1", 500)]
    prompts = [Prompt(small), Prompt([*small, msg("u2", 300)]), Prompt([*small, msg("u2", 300), msg("u3", 10)])]
    calls = price_prompts(PM, WORDS, prompts).calls
    assert [(c.input_tokens, c.cache_read_tokens, c.cache_write_tokens) for c in calls] == [
        (900, 0, 0), (0, 0, 1200), (0, 1200, 10)]
    openai = price_prompts(pricing("openai"), WORDS, prompts).calls
    assert [(c.input_tokens, c.cache_read_tokens) for c in openai] == [(900, 0), (1200, 0), (1210 - 1152, 1152)]


@pytest.mark.parametrize(("shared", "read"), [(1300, 1280), (1024, 1024), (1151, 1024), (1023, 0)])
def test_openai_counts_cached_tokens_in_128_token_increments_from_1024(shared, read):
    model = CacheModel("openai", min_tokens=1024, increment=128, write_premium=1.0, lookback_blocks=None)
    assert split(model, 1400, Match(1400, False, shared, 0)) == (1400 - read, read, 0)


def test_the_previous_prompt_is_found_only_within_the_lookback_blocks():
    base = [system(SYSTEM), msg("u1", 500)]
    twenty = [*base, *tool_round(1, 10, calls=10)]  # 10 calls + 10 results: 20 blocks
    more = [*twenty, *tool_round(2, 10, calls=11)]  # 22 blocks after the previous breakpoint
    prompts = [Prompt(base), Prompt(twenty), Prompt(more)]
    limited = price_prompts(pricing(lookback_blocks=20), WORDS, prompts).calls
    assert [c.cache_read_tokens for c in limited] == [0, 2500, SYSTEM]
    unlimited = price_prompts(pricing(lookback_blocks=None), WORDS, prompts).calls
    assert unlimited[2].cache_read_tokens == 2500 + 110


def test_changed_tool_definitions_invalidate_the_whole_prefix():
    tools = [{"type": "function", "function": {"name": "read"}}]
    messages = history()
    prompts = [Prompt(messages[:2], tools), Prompt(messages[:4], tools), Prompt(messages[:6], [*tools, *tools])]
    calls = price_prompts(PM, WORDS, prompts).calls
    assert [c.prompt_tokens for c in calls] == [2600, 2901, 3302]
    assert [c.cache_read_tokens for c in calls] == [0, 2600, 0]


def test_no_cache_family_pays_every_token_as_input():
    calls = grow([2, 4], pm=pricing("none", min_tokens=0))
    assert [(c.input_tokens, c.cache_read_tokens, c.cache_write_tokens) for c in calls] == [(2500, 0, 0), (2801, 0, 0)]


def test_price_call_carries_the_state_a_fold_would():
    messages, state, calls = history(), None, []
    for n in (2, 4, 6):
        cost, state = price_call(PM, WORDS, Prompt(messages[:n]), state)
        calls.append(cost)
    assert tuple(calls) == price_prompts(PM, WORDS, [Prompt(messages[:n]) for n in (2, 4, 6)]).calls
    assert state.messages == tuple(messages[:6]) and state.cumulative[-1] == calls[-1].prompt_tokens
    assert state.system_count == 1


def test_an_invalid_cache_model_names_every_problem():
    with pytest.raises(CtxlabError, match="family must be one of.*lifetime_s must be positive.*increment"):
        CacheModel("azure", lifetime_s=0, increment=0)
