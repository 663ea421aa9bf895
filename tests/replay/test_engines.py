"""A replay worker that dies (killed for memory, a crash in native code) costs time, not rows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxlab.errors import CtxlabError
from ctxlab.replay import ReplayConfig, engines, replay
from ctxlab.replay.worker import ChunkResult, replay_chunk
from tests.replay.test_replay import query

COLS = 'dataset, seq, unit, label, "window", mode, turn, tokens_before, tokens_after, fits, fact_recall'


def _dies(*args: object) -> ChunkResult:
    """`replay_chunk`, but a worker dies first: always, or only the first time (a marker file says).

    Set up through the environment, so a spawned worker sees it as a forked one does."""
    marker = Path(os.environ["CTXLAB_TEST_DIE_MARKER"])
    in_worker = os.getpid() != int(os.environ["CTXLAB_TEST_MAIN_PID"])
    if in_worker and (os.environ["CTXLAB_TEST_DIE"] == "always" or not marker.exists()):
        marker.touch()
        os._exit(1)  # as a segfault or the OOM killer leaves the pool: no result, no exception
    return replay_chunk(*args)  # type: ignore[arg-type]


@pytest.fixture
def dying(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    def arrange(when: str) -> None:
        monkeypatch.setenv("CTXLAB_TEST_DIE_MARKER", str(tmp_path / "died"))
        monkeypatch.setenv("CTXLAB_TEST_MAIN_PID", str(os.getpid()))
        monkeypatch.setenv("CTXLAB_TEST_DIE", when)
        monkeypatch.setattr(engines, "replay_chunk", _dies)
    return arrange


def _rows(source: str, db: str, workers: int) -> list[tuple]:
    replay(ReplayConfig(source, ["window_guard", "sliding_window"], [800, 4000], modes="both", db=db, workers=workers))
    return query(db, f"SELECT {COLS} FROM result_rows ORDER BY dataset, seq, unit")


def test_a_worker_that_dies_once_is_replaced_and_its_chunks_run_again(tmp_path, small_input, dying):
    clean = _rows(small_input, str(tmp_path / "clean.duckdb"), workers=0)
    dying("once")
    with pytest.warns(RuntimeWarning, match="replay worker died"):
        again = _rows(small_input, str(tmp_path / "again.duckdb"), workers=2)
    assert (tmp_path / "died").exists()  # a worker really died
    assert again == clean and len(clean) > 0


def test_a_chunk_that_kills_its_worker_twice_stops_the_run_naming_it(tmp_path, small_input, dying):
    dying("always")
    with pytest.warns(RuntimeWarning), pytest.raises(CtxlabError, match=r"died twice on agents conversations \d+-\d+"):
        _rows(small_input, str(tmp_path / "dies.duckdb"), workers=2)
