"""Successive halving over sessions: nested stratified samples, rungs that shrink, and on a small
case the same pick as evaluating every setting on every session."""

from __future__ import annotations

import pytest

from ctxlab.tune import Sessions
from ctxlab.tune.halving import ETA, rung_sizes, stratified_order
from ctxlab.tune.run import evaluations_frame, tune


@pytest.fixture(scope="module")
def sessions() -> Sessions:
    return Sessions.load(["sample:agent_sessions"], limit=60)


def test_every_prefix_of_the_order_spreads_over_session_lengths(sessions: Sessions) -> None:
    order = stratified_order(sessions)
    assert sorted(order) == list(range(len(sessions)))
    calls = sorted(sessions.calls_of(i) for i in range(len(sessions)))
    first = sorted(sessions.calls_of(i) for i in order[:8])
    # the first eight sessions reach from the shortest quarter to the longest quarter
    assert first[0] <= calls[len(calls) // 4] and first[-1] >= calls[3 * len(calls) // 4]


def test_rungs_grow_by_eta_and_end_with_every_session() -> None:
    calls = [10] * 300
    sizes = rung_sizes(calls, settings=26)
    assert sizes[-1] == 300 and sizes == sorted(sizes)
    assert len(sizes) == 4  # 26 settings: 26 -> 9 -> 3 -> 1 over four rungs
    for small, big in zip(sizes, sizes[1:], strict=False):
        assert big == pytest.approx(ETA * small, rel=0.15)
    assert rung_sizes([10] * 5, settings=26) == [5]  # too few sessions to split: everything at once


def test_halving_picks_what_the_full_search_picks(sessions: Sessions) -> None:
    halved = tune(sessions, "codex", window=8_000, halving=True)
    full = tune(sessions, "codex", window=8_000, halving=False)
    pick_of = lambda outcome: outcome.result.evaluations[outcome.result.pick.row].setting.key  # noqa: E731
    assert halved.result.method == "halving" and full.result.method == "grid"
    assert pick_of(halved) == pick_of(full)
    frame = evaluations_frame(halved)
    # the pick and the agent's default rest on every session; pruned settings on fewer, and say so
    assert frame.loc[frame["pick"], "sessions"].item() == len(sessions)
    assert frame.loc[frame["default"], "sessions"].item() == len(sessions)
    assert (frame["sessions"] < len(sessions)).any()
    # a setting evaluated on every session has the same numbers either way (its rows are reused, not changed)
    key = pick_of(halved)
    assert halved.evaluator.scored[key].row["needed_recall"] == full.evaluator.scored[key].row["needed_recall"]
