"""Calibrating against the provider: a robust fit on the deltas of billed logs, its time-ordered
held-out error, and the seed estimators on the same deltas."""

from __future__ import annotations

import pytest

from ctxlab.errors import CtxlabError
from ctxlab.messages import Conversation
from ctxlab.metrics.calibration import compare, fit_provider_calibration, heldout_mape, observations, time_key
from ctxlab.metrics.provider import rows_against, usable_deltas
from ctxlab.tokens import get_counter
from tests.provider_logs import FRAMING, MODEL, billed_log, calls_for, opaque_thinking_log

SEEDS = ("chars4", "chars2", "chars3", "ascii_cjk")
REFERENCE = f"provider:{MODEL}"


def provider_mape(counter, logs: list, reference: str = REFERENCE) -> float:
    rows = rows_against(logs, [counter], reference)
    return 100 * sum(abs(r.estimated - r.actual) / r.actual for r in rows) / len(rows)


def test_fit_on_provider_deltas_recovers_the_known_framing_and_beats_the_seeds(tmp_path):
    """Logs billed as o200k_base text tokens + 7 per message behind a hidden 500-token system
    prompt: the fit on their deltas finds the 7, no per-call term, and beats every seed estimator
    on held-out logs and in its own time-ordered cross-validation."""
    train, held = [billed_log(s) for s in range(30)], [billed_log(s) for s in range(100, 115)]
    calibration = fit_provider_calibration(train, REFERENCE, fitted_on="known framing")
    assert calibration.reference == REFERENCE and calibration.n_train == len(usable_deltas(train, REFERENCE))
    assert abs(calibration.per_message - FRAMING) < 1 and calibration.per_tool_call < 1
    assert calibration.reply_priming == 0 and calibration.tool_schema_scale == 1.0 and calibration.train_mape < 2
    assert calibration.heldout_mape is not None and calibration.heldout_mape < 2 and calibration.outliers == ()
    path = tmp_path / "provider.json"
    calibration.save(path)
    new = provider_mape(get_counter(f"calibrated:{path}"), held)
    scores = {name: provider_mape(get_counter(name), held) for name in (*SEEDS, "calibrated")}
    assert new < 2 and all(new < score for score in scores.values()), (new, scores)


def test_deltas_the_messages_cannot_explain_are_named_as_outliers():
    """Three deltas whose prompts grew far less than their messages (calls the agent never resent):
    the robust fit is not dragged by them and lists them with estimate and actual."""
    logs = [billed_log(s) for s in range(12)]
    broken = logs[3]
    calls = [dict(c) for c in broken.meta["provider_calls"]]
    for k in (2, 5, 8):  # shrink three deltas to a few tokens, keeping every later delta intact
        shrink = calls[k]["prompt_tokens"] - calls[k - 1]["prompt_tokens"] - 6
        for later in calls[k:]:
            later["prompt_tokens"] -= shrink
    logs[3] = Conversation(broken.id, broken.messages, meta={**broken.meta, "provider_calls": calls})
    calibration = fit_provider_calibration(logs, REFERENCE)
    named = {o.span for o in calibration.outliers}
    expected = {f"{broken.id} delta:{calls[k - 1]['index']}-{calls[k]['index']}" for k in (2, 5, 8)}
    assert named == expected
    assert all(o.actual == 6 and o.estimate > 2 * o.actual for o in calibration.outliers)
    assert abs(calibration.per_message - FRAMING) < 1.5


def test_deltas_come_in_time_order_and_fold_by_time():
    logs = [billed_log(s) for s in range(4)]
    data = observations(reversed(logs), REFERENCE)  # no timestamps: by conversation, then position
    assert [time_key(p)[1:] for p in data.pairs] == sorted(time_key(p)[1:] for p in data.pairs)
    assert len(data.rows) == len(data.actual) == len(data.labels) == len(usable_deltas(logs, REFERENCE))
    assert heldout_mape(data.part(slice(3))) is None and len(data.part(slice(3)).known) == 3
    assert heldout_mape(data) < 3


def test_compare_puts_every_estimator_on_the_same_deltas():
    logs = [billed_log(s) for s in range(10)]
    data = observations(logs, REFERENCE)
    calibration = fit_provider_calibration(data, REFERENCE)
    comparison = compare(data, calibration, SEEDS)
    assert comparison.n == len(data.actual) and set(comparison.train) == {"calibrated (new)", *SEEDS}
    assert comparison.train["chars4"] == pytest.approx(provider_mape(get_counter("chars4"), logs))
    name, best = comparison.best_seed(SEEDS)
    assert best == min(comparison.train[s] for s in SEEDS) and comparison.heldout < best


def test_provider_fit_pools_models_with_a_star_and_names_the_models_it_lacks():
    haiku = [Conversation(c.id, c.messages, meta={"provider_calls": calls_for(c.messages, model="claude-haiku-4-5")})
             for c in (billed_log(s) for s in range(40, 45))]
    logs = [billed_log(s) for s in range(5)] + haiku
    pooled = fit_provider_calibration(logs, "provider:*")
    assert pooled.n_train == len(usable_deltas(logs, REFERENCE)) + len(usable_deltas(haiku, "provider:*"))
    with pytest.raises(CtxlabError, match=rf"provider:gpt-5.*models found: {MODEL} .*claude-haiku-4-5"):
        fit_provider_calibration(logs, "provider:gpt-5")


def test_thinking_sized_by_the_log_is_taken_out_of_the_fit_and_added_to_every_estimate():
    logs = [opaque_thinking_log(s) for s in range(12)]
    data = observations(logs, "provider:gemini-2.5-pro")
    assert sum(data.known) > 0 and data.targets == [a - k for a, k in zip(data.actual, data.known, strict=True)]
    calibration = fit_provider_calibration(data, "provider:gemini-2.5-pro")
    assert abs(calibration.per_message - FRAMING) < 1 and calibration.heldout_mape < 2
    rows = rows_against(logs, ["o200k_base"], "provider:gemini-2.5-pro")  # o200k_base is the billed text
    assert all(abs(r.estimated - r.actual) <= FRAMING * 12 for r in rows)
