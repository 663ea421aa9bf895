"""The search space: spans resolved at a window and aligned to steps, grids, settings and keys."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxlab.errors import CtxlabError, UnknownNameError
from ctxlab.tune import dimensions, knobs_for, setting
from ctxlab.tune.space import GRID_POINTS, on_step, setting_key


def test_pi_dimensions_at_a_window():
    dims = dimensions(knobs_for("pi"), 64_000)
    assert [d.name for d in dims] == ["compaction.reserveTokens", "compaction.keepRecentTokens"]
    reserve = dims[0]
    assert (reserve.low, reserve.high) == (3328, 32_000)  # 5% and 50% of 64k, on multiples of 256
    assert reserve.grid() == (3328, 10_496, 17_664, 24_832, 32_000)
    assert len(reserve.grid()) == GRID_POINTS


def test_a_share_grid_stays_on_its_step():
    (threshold,) = dimensions(knobs_for("inspect_summary"), 64_000)
    assert threshold.grid() == (0.3, 0.45, 0.6, 0.8, 0.95)  # 0.625 rounds half to even
    assert threshold.grid(1) == (0.3,) and threshold.grid(2) == (0.3, 0.95)


def test_an_empty_span_is_an_error_naming_the_knob():
    with pytest.raises(CtxlabError, match="trigger: nothing to search at a window of 40,000"):
        dimensions(knobs_for("anthropic_compaction"), 40_000)  # the API refuses a trigger under 50,000


def test_knob_names_are_checked():
    with pytest.raises(UnknownNameError, match="compaction.reserveTokens"):
        dimensions(knobs_for("pi"), 64_000, ["reserveTokens"])
    with pytest.raises(UnknownNameError):
        dimensions(knobs_for("anthropic_context_editing"), 64_000, ["exclude_tools"])  # not searchable


def test_setting_in_agent_terms_and_key():
    s = setting("pi", 64_000, {"compaction.reserveTokens": 10_000.4})
    assert s.values == {"compaction.reserveTokens": 9984, "compaction.keepRecentTokens": 20_000}  # on the step
    assert s.params == {"trigger": "reserve", "trigger_reserve": 9984, "summary_max_tokens": 7987,
                        "prefix_max_tokens": 4992}
    assert s.key == setting_key("pi", 64_000, {**s.params, "trigger_reserve": 9984.0}), "whole floats key as ints"
    assert s.key != setting("pi", 64_000, {"compaction.reserveTokens": 9984}, scope="other sessions").key
    assert s.key != setting("pi", 32_000, {"compaction.reserveTokens": 9984}).key


def test_default_setting_has_no_overrides():
    s = setting("codex", 64_000, {})
    assert s.params == {} and s.values == {"model_auto_compact_token_limit": 57_600}


@given(st.floats(-1e6, 1e6))
def test_on_step_is_idempotent(x):
    for knob in (knobs_for("pi").knob("compaction.reserveTokens"), knobs_for("goose").knobs[0]):
        once = on_step(x, knob)
        assert on_step(once, knob) == once
        assert abs(once - x) <= knob.step / 2 + 1e-9
