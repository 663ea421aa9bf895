"""Successive halving over sessions: nested stratified samples, rungs that shrink, and on a small
case the same pick as evaluating every setting on every session."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ctxlab.tune import Sessions
from ctxlab.tune.halving import ETA, halving, rung_sizes, stratified_order
from ctxlab.tune.measures import Evaluation, Goal, Sample
from ctxlab.tune.run import evaluations_frame, tune
from ctxlab.tune.space import Setting
from ctxlab.tune.tuner import SearchResult


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
    firsts: list[tuple[SearchResult, int]] = []
    halved = tune(sessions, "codex", window=8_000, halving=True, on_first_pick=lambda r, n: firsts.append((r, n)))
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
    # the first pick came while other contenders were still running, from the default and one other
    [(first, pending)] = firsts
    assert pending > 0 and first.pick is not None
    assert len({first.pick.row, first.default}) <= 2 and first.default == 0
    assert frame.loc[first.pick.row, "sessions"].item() == len(sessions)


def _fake_candidates(n: int) -> list[Setting]:
    return [Setting("fake", 8_000, {"k": i}, {"k": i}, f"fake-{i}") for i in range(n)]


def _fake_objective(asked: list[tuple[int, int]]) -> Callable[[Setting, int], dict[str, tuple[Sample, ...]]]:
    """Settings alike in quality (so several reach the last rung) with a cost that falls with the
    index, session by session: each setting's numbers depend only on it and the sessions asked."""
    def objective(candidate: Setting, sessions: int) -> dict[str, tuple[Sample, ...]]:
        i = candidate.values["k"]
        asked.append((i, sessions))
        quality = tuple(Sample(0.8 + 0.01 * ((s * 7 + i) % 5), 1.0) for s in range(sessions))
        cost = tuple(Sample(1000.0 - 10 * i + (s % 3), 1.0) for s in range(sessions))
        return {"q": quality, "c": cost, "r": tuple(Sample(0.0, 1.0) for _ in range(sessions))}
    return objective


def test_the_first_pick_rests_on_every_session_before_the_other_contenders_run() -> None:
    goal, calls = Goal("q", "c", "r"), [10] * 120
    order = list(range(120))
    plain_asked: list[tuple[int, int]] = []
    plain = halving(_fake_candidates(12), _fake_objective(plain_asked), order, calls, goal)
    asked: list[tuple[int, int]] = []
    firsts: list[tuple[list[int], int, int]] = []

    def on_first(evaluations: list[Evaluation], full: list[int], pending: int) -> None:
        firsts.append((full, pending, len(asked)))
        assert all(evaluations[i].measures["q"].sessions == len(order) for i in full)

    evaluations, rungs, full = halving(_fake_candidates(12), _fake_objective(asked), order, calls, goal,
                                       on_first=on_first)
    assert len(full) > 2  # several contenders reached the last rung: the case a first pick is for
    assert (evaluations, rungs, full) == plain  # the same search, only the last rung's order differs
    assert sorted(asked) == sorted(plain_asked)
    [(first, pending, at)] = firsts
    assert 0 in first and len(first) == 2 and pending == len(full) - 2
    # the leader is what the rung before picks, and both were evaluated on every session first
    before = [i for i, n in asked[:at] if n < len(order)]
    assert asked[at - 2:at] == [(i, len(order)) for i in first]
    assert all(i not in first or n < len(order) for i, n in asked[:at - 2]) and before
    assert all(n == len(order) and i not in first for i, n in asked[at:])
