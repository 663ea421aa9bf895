"""The replay in-process: per-turn semantics, carried state, error rows, skips, resume."""

from __future__ import annotations

import json

import pytest

from ctxlab import store
from ctxlab.errors import InvalidInputError
from ctxlab.replay import ReplayConfig, replay
from tests.replay.helpers import agent_record, write_jsonl


def query(db, sql, *args):
    with store.reading(db) as con:
        return con.execute(sql, list(args)).fetchall()


def test_per_turn_replays_before_every_assistant_message_and_carries_state(tmp_path, small_input, fake_strategies):
    db = tmp_path / "r.duckdb"
    summary = replay(ReplayConfig(small_input, ["test_stateful"], [100_000], modes="per-turn", db=str(db), workers=0, limit=1,
                     estimators=()))
    assert summary.status == "finished" and summary.errors == 0
    # agent_record: system, then 3 x (user, assistant call, tool, assistant answer).
    turns = [t for (t,) in query(db, "SELECT turn FROM result_rows ORDER BY turn")]
    assert turns == [2, 4, 6, 8, 10, 12]
    # Each turn the strategy got its previous result back and merged its summary (#n counts them).
    # The first fold happens at turn 6 (a second user message exists), then once per turn.
    texts = query(db, "SELECT turn, summary FROM summaries ORDER BY turn")
    assert texts == [(6, "summary#1"), (8, "summary#2"), (10, "summary#3"), (12, "summary#4")]
    # Turn 8's live input is turn 6's result (system, summary#1, user) plus the call and its result
    # since then: 5 messages standing for 8 originals, 4 of them dropped (folded), 1 summary added.
    row = query(db, "SELECT messages_in, input_messages, messages_dropped, messages_added FROM result_rows "
                    "WHERE turn = 8")[0]
    assert row == (8, 5, 4, 1)


def test_final_mode_and_references(tmp_path, small_input):
    db = tmp_path / "f.duckdb"
    s = replay(ReplayConfig(small_input, ["noop", "window_guard"], [500, 100_000], references=["o200k_base", "cl100k_base"],
               db=str(db), workers=0))
    assert (s.conversations, s.units, s.errors) == (4, 16, 0)
    assert query(db, "SELECT count(*) FROM results")[0][0] == 32
    assert query(db, "SELECT DISTINCT turn, mode FROM results") == [(-1, "final")]
    # noop at a small window overflows under every tokenizer; at a huge one everything fits.
    fits = dict(query(db, "SELECT r.window, bool_and(fits_reference) FROM results r WHERE strategy = 'noop' GROUP BY 1"))
    assert fits == {500: False, 100_000: True}
    assert query(db, "SELECT bool_and(tool_pairs_intact), bool_and(system_kept) FROM result_rows")[0] == (True, True)
    tokens = json.loads(query(db, "SELECT tokens FROM conversations LIMIT 1")[0][0])
    assert set(tokens) == {"o200k_base", "cl100k_base"}
    with store.reading(db) as con:
        conv = store.conversation(con, s.run_id, "conv-0")
        assert len(conv.messages) == 13
        assert not store.estimator_summary(con, s.run_id).empty


def test_strategy_failure_is_an_error_row_not_a_crash(tmp_path, small_input, fake_strategies):
    db = tmp_path / "e.duckdb"
    s = replay(ReplayConfig(small_input, ["noop", "test_exploding"], [1000], db=str(db), workers=0, estimators=()))
    assert s.status == "finished" and s.errors == 4
    rows = query(db, "SELECT status, error, count(*) FROM result_rows GROUP BY ALL ORDER BY 1")
    assert rows == [("error", "RuntimeError: boom", 4), ("ok", None, 4)]


def test_bad_records_stop_the_run_or_become_skips(tmp_path):
    path = write_jsonl(tmp_path / "bad.jsonl", [agent_record(0), "{not json", {"id": "x", "messages": []},
                                                agent_record(1)])
    db = str(tmp_path / "b.duckdb")
    with pytest.raises(InvalidInputError):
        replay(ReplayConfig(path, ["noop"], [1000], db=db, workers=0, estimators=()))
    s = replay(ReplayConfig(path, ["noop"], [1000], db=db, workers=0, estimators=(), skip_invalid=True))
    assert (s.conversations, s.skips) == (2, 2)
    assert len(query(db, "SELECT \"where\", reason FROM skips")) == 2
    again = replay(ReplayConfig(path, ["noop"], [1000], db=db, workers=0, estimators=(), skip_invalid=True))
    assert (again.conversations, again.resumed) == (0, 2)
    assert query(db, "SELECT count(*) FROM skips")[0][0] == 2  # not recorded twice


def test_rerun_resumes_and_a_bigger_limit_extends(tmp_path, small_input):
    db = str(tmp_path / "x.duckdb")
    first = replay(ReplayConfig(small_input, ["noop"], [1000], db=db, workers=0, limit=2, estimators=()))
    second = replay(ReplayConfig(small_input, ["noop"], [1000], db=db, workers=0, estimators=()))
    assert first.run_id == second.run_id and (second.conversations, second.resumed) == (2, 2)
    assert query(db, "SELECT count(*), count(DISTINCT seq) FROM result_rows")[0] == (4, 4)
    other = replay(ReplayConfig(small_input, ["noop"], [2000], db=db, workers=0, estimators=()))
    assert other.run_id != first.run_id  # a different window is a different run


def test_local_pool_matches_in_process(tmp_path, small_input):
    cols = 'dataset, seq, unit, label, "window", mode, turn, tokens_before, tokens_after, fits, fact_recall'
    out = {}
    for workers in (0, 2):
        db = str(tmp_path / f"w{workers}.duckdb")
        replay(ReplayConfig(small_input, ["window_guard", "sliding_window"], [800, 4000], modes="both", db=db, workers=workers))
        out[workers] = query(db, f"SELECT {cols} FROM result_rows ORDER BY dataset, seq, unit")
    assert out[0] == out[2] and len(out[0]) > 0
