"""The Ray engine writes the same rows as the local engine (one test: Ray starts in ~15 s)."""

from __future__ import annotations

import pytest

from ctxlab import store
from ctxlab.replay import ReplayConfig, replay

pytest.importorskip("ray")
COLUMNS = ('dataset, seq, unit, conversation_id, label, counter, "window", mode, turn, tokens_before, tokens_after, '
           "retained_ratio, fits, messages_kept, messages_dropped, tool_pairs_intact, fact_recall, status")


@pytest.mark.slow
def test_ray_engine_matches_local(tmp_path, small_input, monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    rows = {}
    for engine in ("local", "ray"):
        db = str(tmp_path / f"{engine}.duckdb")
        summary = replay(ReplayConfig(small_input, ["window_guard", "compaction"], [600, 4000], modes="both", db=db,
                         workers=2, engine=engine, references=["o200k_base", "cl100k_base"]))
        assert summary.status == "finished"
        with store.reading(db) as con:
            rows[engine] = (con.execute(f"SELECT {COLUMNS} FROM result_rows ORDER BY dataset, seq, unit").fetchall(),
                            con.execute("SELECT * EXCLUDE (run_id) FROM result_refs ORDER BY ALL").fetchall(),
                            con.execute("SELECT count(*) FROM estimator_rows").fetchall())
    assert rows["ray"] == rows["local"] and len(rows["local"][0]) > 0


class _FlakyRay:
    """Stands in for the ray module: its first `failures` starts time out, as on a loaded machine."""

    def __init__(self, failures: int):
        self.failures, self.inits, self.shutdowns = failures, 0, 0

    def init(self, **kwargs):
        self.inits += 1
        if self.inits <= self.failures:
            raise Exception("The current node timed out during startup.")

    def shutdown(self):
        self.shutdowns += 1


def test_ray_start_is_tried_again_after_a_timed_out_start():
    from ctxlab.errors import CtxlabError
    from ctxlab.replay.engines import RAY_STARTS, _start_ray

    flaky = _FlakyRay(failures=RAY_STARTS - 1)
    _start_ray(flaky, 2, None)
    assert flaky.inits == RAY_STARTS and flaky.shutdowns == RAY_STARTS - 1
    with pytest.raises(CtxlabError, match="did not start"):
        _start_ray(_FlakyRay(failures=RAY_STARTS), 2, None)
