"""Settings evaluated in forked workers: the same numbers as in one process, sessions kept by their owner."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import ctxlab.tune.forked as forked_module
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


_REPLAY_OWNED = forked_module._replay_owned


def _dies(spec: object, part: list[int]) -> dict[str, pa.Table]:
    """A worker's `_replay_owned`, but the worker dies first: always, or only the first time (a
    marker file says). Set up through the environment, so a spawned worker sees it as a forked one."""
    marker = Path(os.environ["CTXLAB_TEST_DIE_MARKER"])
    if os.environ["CTXLAB_TEST_DIE"] == "always" or not marker.exists():
        marker.touch()
        os._exit(1)  # as a segfault leaves the pool: no result, no exception sent back
    return _REPLAY_OWNED(spec, part)  # type: ignore[arg-type]


@pytest.mark.parametrize("crashes", ["once", "always"])
def test_a_crashed_worker_costs_time_not_rows(sessions: Sessions, crashes: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CTXLAB_TEST_DIE_MARKER", str(tmp_path / "died"))
    monkeypatch.setenv("CTXLAB_TEST_DIE", crashes)
    monkeypatch.setattr(forked_module, "_replay_owned", _dies)  # what a worker is handed, by name
    alone = Evaluator(sessions, window=8_000)
    forked = Evaluator(Sessions.load(["sample:agent_sessions"], limit=12), window=8_000, workers=2)
    alone.order = forked.order = stratified_order(sessions)
    try:
        with pytest.warns(RuntimeWarning, match="tune worker crashed") as caught:
            two = forked.evaluate("pi")
        one = alone.evaluate("pi")
        assert (tmp_path / "died").exists()  # a worker really died
        assert one.samples == two.samples
        pd.testing.assert_series_equal(pd.Series(one.row), pd.Series(two.row))
        replayed_here = [w for w in caught if "crashed again" in str(w.message)]
        assert bool(replayed_here) == (crashes == "always")
    finally:
        forked.close()


def test_workers_are_spawned_when_another_thread_runs(sessions: Sessions) -> None:
    """Forking beside a running thread can hand a worker a half-changed lock or structure: spawned."""
    apart = Sessions.load(["sample:agent_sessions"], limit=12)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="beside")
    thread.start()
    forked = Evaluator(apart, window=8_000, workers=2)
    forked.order = stratified_order(sessions)
    alone = Evaluator(sessions, window=8_000)
    alone.order = forked.order
    try:
        two, one = forked.evaluate("pi", sessions=4), alone.evaluate("pi", sessions=4)
        assert forked._forked is not None
        assert {pool._mp_context.get_start_method() for pool in forked._forked.pools} == {"spawn"}
        assert one.samples == two.samples
    finally:
        stop.set()
        thread.join()
        forked.close()
