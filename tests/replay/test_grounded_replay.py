"""The grounded measures in a replay: a row per per-turn unit, and a policy never sees the future."""

from __future__ import annotations

import json

from ctxlab import store
from ctxlab.datasets import load_conversations
from ctxlab.replay import ReplayConfig, replay
from ctxlab.replay.plan import turn_indices
from tests.replay import helpers
from tests.replay.helpers import write_jsonl


def test_a_policy_is_handed_only_the_messages_before_the_call_it_compresses(tmp_path, small_input, fake_strategies):
    helpers.SEEN.clear()
    replay(ReplayConfig(small_input, ["test_spy"], [100_000], modes="per-turn", db=str(tmp_path / "s.duckdb"),
                        workers=0, limit=1, estimators=()))
    conv = next(load_conversations(small_input))
    # Call k compresses before message turns[k]: the newest message it saw is the one just before it,
    # though the grader (SessionNeeds) had read the whole session, its last action included.
    assert helpers.SEEN == [t - 1 for t in turn_indices(conv)]


def recall_record() -> dict:
    """A read whose long output names MAX_RETRY_COUNT, an unrelated user turn, then an edit using it."""
    output = "\n".join(f"option_{i} = {i}  # " + "filler text " * 8 for i in range(60)) + "\nMAX_RETRY_COUNT = 3\n"
    edit = json.dumps({"path": "src/app/config.py", "old": "MAX_RETRY_COUNT = 3", "new": "MAX_RETRY_COUNT = 5"})
    return {"id": "r", "messages": [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "Read src/app/config.py."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "read_file", "arguments": json.dumps({"path": "src/app/config.py"})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": output},
        {"role": "assistant", "content": "Read it."},
        {"role": "user", "content": "Now raise the retry limit to five."},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "type": "function", "function": {
            "name": "edit_file", "arguments": edit}}]},
        {"role": "tool", "tool_call_id": "c2", "content": "ok"},
        {"role": "assistant", "content": "Done."}]}


def test_every_per_turn_unit_gets_grounded_measures_and_noop_keeps_every_needed_string(tmp_path):
    db = tmp_path / "g.duckdb"
    source = write_jsonl(tmp_path / "r.jsonl", [recall_record()])
    run = replay(ReplayConfig(source, ["noop", "sliding_window"], [300], modes=["final", "per-turn"], db=str(db),
                              workers=0, estimators=()))
    with store.reading(db) as con:
        rows = con.execute("""
            SELECT mode, label, count(*), count(needed_total), sum(needed_kept), sum(needed_total), sum(refetch_tokens)
            FROM results WHERE run_id = ? GROUP BY ALL ORDER BY ALL""", [run.run_id]).fetchall()
    by = {(mode, label): rest for mode, label, *rest in rows}
    assert by[("final", "noop")][1] == 0  # final mode has no next action to grade by
    units, graded, kept, total, refetch = by[("per-turn", "noop")]
    assert units == graded and total > 0 and kept == total and refetch == 0
    units, graded, kept, total, refetch = by[("per-turn", "sliding_window")]
    assert units == graded and kept < total and refetch > 0  # 300 tokens cannot hold the output it read


def test_grounded_measures_can_be_left_out_and_change_the_run_identity(tmp_path, small_input):
    db = str(tmp_path / "o.duckdb")
    on = replay(ReplayConfig(small_input, ["noop"], [1000], modes="per-turn", db=db, workers=0, limit=1, estimators=()))
    off = replay(ReplayConfig(small_input, ["noop"], [1000], modes="per-turn", db=db, workers=0, limit=1, estimators=(),
                              grounded=False))
    assert on.run_id != off.run_id
    with store.reading(db) as con:
        assert con.execute("SELECT count(*) FROM result_grounded WHERE run_id = ?", [off.run_id]).fetchall() == [(0,)]
