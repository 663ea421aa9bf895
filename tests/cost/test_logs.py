"""Recorded sessions priced as recorded and as predicted from the recorded prompt sizes: hand-built
logs whose verdicts are known, then the real logs in ../shared/reallogs."""

from __future__ import annotations

import pytest

from ctxlab.cost import ESTIMATED, Unpriced, check_logs, check_session, combined
from ctxlab.datasets import load_conversations
from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from tests.cost.sessions import PM, WORDS, msg, recorded


def test_a_log_recorded_as_the_model_predicts_matches_on_every_call():
    log = recorded((1, 0, 0, 5000), (3, 0, 5000, 400), (5, 0, 5400, 300))
    check = check_session(log, PM, WORDS)
    assert [c.predicted.cache_read_tokens for c in check.calls] == [0, 5000, 5400]
    assert check.cache_read_match_rate == 1.0 and check.predicted == check.recorded


def test_an_early_eviction_is_an_unexplained_miss_and_a_foreign_cache_an_unexpected_hit():
    log = recorded((1, 0, 3000, 2000), (3, 0, 0, 5400), (5, 0, 5400, 300))
    check = check_session(log, PM, WORDS)
    assert [c.verdict for c in check.calls] == ["unexpected hit", "unexplained miss", "match"]
    assert check.cache_read_match_rate == pytest.approx(1 / 3)
    assert check.recorded.cost_usd < check.predicted.cost_usd + 5000 * 1.25e-6  # the miss paid a rewrite


def test_a_read_within_two_percent_of_the_prompt_plus_64_tokens_matches():
    prompt = 10_000
    near = recorded((1, 0, 0, 5000), (3, 0, 5000 - 264, prompt - 5000 + 264))
    far = recorded((1, 0, 0, 5000), (3, 0, 5000 - 265, prompt - 5000 + 265))
    assert check_session(near, PM, WORDS).calls[1].matches
    assert not check_session(far, PM, WORDS).calls[1].matches


def test_after_a_gap_longer_than_the_lifetime_nothing_is_predicted_read():
    times = [0.0, 5.0, 10.0, 400.0, 405.0]  # the prompts end at 0 s (call at 1) and 400 s (call at 4)
    log = recorded((1, 0, 0, 5000), (4, 0, 0, 5400), times=times)
    call = check_session(log, PM, WORDS).calls[1]
    assert call.gap_s == 400 and call.predicted.cache_read_tokens == 0 and call.matches


def test_after_a_compaction_only_the_system_prompt_the_log_shows_is_predicted_read():
    calls = ((1, 0, 0, 5000), (3, 0, 5000, 400), (5, 0, 2000, 1000))
    with_system = check_session(recorded(*calls, compaction_at=5, with_system=True), PM, WORDS)
    assert with_system.calls[2].predicted.cache_read_tokens == 2000 and with_system.calls[2].matches
    hidden = check_session(recorded(*calls, compaction_at=5), PM, WORDS)
    assert hidden.calls[2].predicted.cache_read_tokens == 0 and hidden.calls[2].verdict == "unexpected hit"


def test_calls_whose_counts_are_estimates_are_priced_but_never_checked():
    """Aider prints its own rounded estimate of each prompt, with no cache split: pricing it is
    all a log of estimates allows; comparing its cache read (always 0) with a prediction would
    report every call after the first as an unexplained miss."""
    log = recorded((1, 0, 0, 5000), (3, 5400, 0, 0), (5, 0, 0, 5700))
    calls = [dict(c) for c in log.meta["provider_calls"]]
    calls[1]["estimated"] = "Aider's printed counts"
    check = check_session(Conversation(log.id, log.messages, meta={**log.meta, "provider_calls": calls}), PM, WORDS)
    assert [c.verdict for c in check.calls] == ["match", ESTIMATED, "unexplained miss"]
    assert [c.checked for c in check.calls] == [True, False, True] and len(check.checked) == 2
    assert check.cache_read_match_rate == 0.5 and check.count("unexplained miss") == 1
    assert check.calls[1].recorded.input_tokens == 5400 and check.recorded.cost_usd > 0  # still priced
    data = check.to_json()
    assert data["estimated_calls"] == 1 and [m["index"] for m in data["mismatches"]] == [5]
    all_estimated = [{**c, "estimated": "x"} for c in calls]
    none = check_session(Conversation(log.id, log.messages, meta={**log.meta, "provider_calls": all_estimated}),
                         PM, WORDS)
    assert none.cache_read_match_rate is None and none.to_json()["mismatches"] == []


def test_the_json_form_has_the_contracted_keys():
    data = check_session(recorded((1, 0, 0, 5000), (3, 0, 0, 5400)), PM, WORDS).to_json()
    assert {"session", "calls", "recorded", "predicted", "cache_read_match_rate"} <= set(data)
    for side in ("recorded", "predicted"):
        assert {"input_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd"} <= set(data[side])
    assert data["calls"] == 2 and data["unexplained_misses"] == 1
    assert data["mismatches"][0]["predicted_cache_read"] == 5000 and data["mismatches"][0]["recorded_cache_read"] == 0


def test_check_logs_prices_each_session_by_its_own_model_and_skips_logs_without_usage():
    priced = recorded((1, 0, 0, 5000), model="claude-sonnet-4-5")
    plain = Conversation("chat", (msg("u", 3),))
    checks = list(check_logs([plain, priced]))
    assert [(c.session, c.model) for c in checks] == [("log", "claude-sonnet-4-5")]
    assert [c.model for c in check_logs([priced], "gpt-4o")] == ["gpt-4o"]
    unnamed = Conversation("x", priced.messages, meta={**priced.meta, "model": None,
                                                        "provider_calls": [{**priced.meta["provider_calls"][0],
                                                                            "model": None}]})
    with pytest.raises(CtxlabError, match="x: the log names no model"):
        list(check_logs([unnamed]))


def test_check_logs_names_the_sessions_it_cannot_price_and_prices_the_rest():
    priced = recorded((1, 0, 0, 5000), model="claude-sonnet-4-5")
    odd = Conversation("odd", priced.messages, meta={**priced.meta, "model": "no-such-model"})
    unnamed = Conversation("x", priced.messages, meta={**priced.meta, "model": None})
    unpriced: list[Unpriced] = []
    checks = list(check_logs([odd, priced, unnamed], on_unpriced=unpriced.append))
    assert [c.session for c in checks] == ["log"]
    assert [(u.session, u.model) for u in unpriced] == [("odd", "no-such-model"), ("x", "")]
    assert unpriced[0].reason.startswith("unknown model 'no-such-model'") and "names no model" in unpriced[1].reason


def test_real_claude_code_sessions_replayed_as_recorded_predict_90_percent_of_cache_reads(reallogs):
    checks = {c.session: c for c in check_logs(load_conversations(str(reallogs / "claude_code")))}
    for main in ("4d5611e5-241a-462a-8d15-5122611a9569", "fa812bfe-b295-4cca-9c2f-fdf01028cb46"):
        assert len(checks[main].calls) > 100 and checks[main].cache_read_match_rate >= 0.9
        assert checks[main].predicted.cost_usd == pytest.approx(checks[main].recorded.cost_usd, rel=0.05)
    assert combined(checks.values()).cache_read_match_rate >= 0.9


def test_real_openhands_sessions_predict_their_cache_reads(reallogs):
    checks = list(check_logs(load_conversations(str(reallogs / "openhands")), "claude-sonnet-4-5"))
    calls = combined(checks)
    assert len(calls.calls) >= 10 and calls.cache_read_match_rate >= 0.9
