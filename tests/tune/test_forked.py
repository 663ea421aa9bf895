"""Settings evaluated in forked workers: the same numbers as in one process, sessions kept by their owner."""

from __future__ import annotations

import pandas as pd
import pytest

from ctxlab.tune import Sessions
from ctxlab.tune.evaluate import Evaluator
from ctxlab.tune.halving import stratified_order
from ctxlab.tune.run import tune


@pytest.fixture(scope="module")
def sessions() -> Sessions:
    return Sessions.load(["sample:agent_sessions"], limit=12)


def test_forked_workers_give_the_numbers_of_one_process(sessions: Sessions) -> None:
    apart = Sessions.load(["sample:agent_sessions"], limit=12)  # the main process must not prepare these
    alone = Evaluator(sessions, window=8_000)
    forked = Evaluator(apart, window=8_000, workers=2)
    order = stratified_order(sessions)
    alone.order = forked.order = order
    try:
        for label, n in (("pi", 5), ("pi", None), ("pi:keep_tokens=3000", None)):
            one, two = alone.evaluate(label, sessions=n), forked.evaluate(label, sessions=n)
            assert one.samples == two.samples
            pd.testing.assert_series_equal(pd.Series(one.row), pd.Series(two.row))  # NaN where both have none
        assert forked._forked is not None
        owners = forked._forked.owner
        assert sorted(owners) == list(range(len(sessions)))  # every session has one owner ...
        assert set(owners.values()) == {0, 1}  # ... and both workers own some
        assert not apart._prepared  # the main process prepared nothing: the workers did
    finally:
        forked.close()
    assert forked._forked is None


def test_tune_with_workers_picks_what_one_process_picks(sessions: Sessions) -> None:
    one = tune(sessions, "codex", window=8_000)
    two = tune(sessions, "codex", window=8_000, workers=2)
    keys = lambda outcome: [e.setting.key for e in outcome.result.evaluations]  # noqa: E731
    assert keys(one) == keys(two)
    assert one.result.pick == two.result.pick
    assert two.evaluator._forked is None  # stopped when the search ended
