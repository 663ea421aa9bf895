"""`ctxlab learn`: the time split, the labels (credit only for strings the newest events do not hold),
a seeded fit written as JSON, the judging tables and their record in the store, and the one-line
errors for bad input."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from ctxlab import store
from ctxlab.cli import app
from ctxlab.errors import CtxlabError
from ctxlab.learn import Examples, fit_model, learn, session_examples, split_sessions, started
from ctxlab.messages import Conversation, Message
from ctxlab.strategies.mechanics.need import FEATURES
from ctxlab.strategies.mechanics.need_model import NeedModel
from ctxlab.tokens import get_counter
from tests.builders import Convo, prose
from tests.replay.helpers import write_jsonl

O200K = get_counter("o200k_base")


def dated(i: int, when: float | None) -> Conversation:
    return Conversation(f"s{i}", (Message("user", "hi", timestamp=when), Message("assistant", "hello")))


def test_the_earliest_sessions_are_fitted_on_and_undated_ones_judged():
    convs = [dated(0, 300.0), dated(1, None), dated(2, 100.0), dated(3, 200.0), dated(4, 400.0)]
    parts = split_sessions(convs, "time", 0.6)
    assert parts.train == (0, 2, 3) and parts.test == (1, 4)  # 100, 200, 300 | 400, undated
    assert split_sessions(convs, "none").test == () and split_sessions(convs, "none").train == (0, 1, 2, 3, 4)
    aider = Conversation("a", (Message("user", "x"),), meta={"started": "2025-07-15 11:38:37"})
    assert started(aider) == pytest.approx(1752579517.0)
    assert split_sessions([dated(0, None), dated(1, None), dated(2, None)], "time", 0.7).train == (0, 1)  # read order
    for share in (0.0, 1.0, 1.5, -0.2):
        with pytest.raises(CtxlabError, match="--train-share must be between 0 and 1"):
            split_sessions(convs, "time", share)
    with pytest.raises(CtxlabError, match="at least 2 sessions"):
        split_sessions([dated(0, 1.0)], "time", 0.7)


def remembered() -> Conversation:
    """An early output holds `src/cfg/settings_7.py`, then many unrelated reads, then the agent uses it."""
    c = Convo().system().user("Find where the retry limit is set.")
    c.tools(("read_file", "retries live in src/cfg/settings_7.py: MAX_RETRY_COUNT = 5\n" + prose(400)))
    for step in range(8):
        c.tools(("grep", f"{prose(300, step)} src/other/file_{step}.py"), text=f"Looking at step_{step}.")
    c.assistant("Editing src/cfg/settings_7.py to raise MAX_RETRY_COUNT.")
    return Conversation("remembered", c.build())


def test_an_old_output_is_credited_only_for_strings_the_newest_events_do_not_hold():
    examples, needed = session_examples(remembered(), O200K, horizon=3, recent_events=4)
    assert needed >= 2 and len(examples.rows[0]) == len(FEATURES)
    assert sum(examples.labels) >= 1  # the first read, at the last call
    echoed = remembered().messages[:-1] + (Message("assistant", "Recall: src/cfg/settings_7.py, MAX_RETRY_COUNT.",
                                                   id="echo"),
                                           Message("user", "ok", id="ok"),
                                           Message("assistant", "Editing src/cfg/settings_7.py now.", id="end"))
    late, _ = session_examples(Conversation("echoed", echoed), O200K, horizon=1, recent_events=4)
    assert sum(late.labels[-9:]) == 0  # at the last call the newest events hold the string: nothing credited


def test_the_fit_is_seeded_and_written_as_json(tmp_path):
    examples = Examples.empty()
    for k, conv in enumerate([remembered(), remembered()]):
        found, _ = session_examples(conv, O200K, k, horizon=10, recent_events=2)
        examples.extend(found)
    examples.labels[0] = 1 - examples.labels[0] if len(set(examples.labels)) == 1 else examples.labels[0]
    first, second = fit_model(examples, {"x": 1}), fit_model(examples, {"x": 1})
    assert first.to_json() == second.to_json()
    path = tmp_path / "m.json"
    path.write_text(first.to_json())
    assert NeedModel.load(path) == first and json.loads(path.read_text())["about"] == {"x": 1}
    with pytest.raises(CtxlabError, match="nothing to learn from"):
        fit_model(Examples([[0.0] * len(FEATURES)] * 3, [0, 0, 0], [0, 0, 0]), {})


def test_bad_input_ends_in_one_line(tmp_path):
    runner = CliRunner()
    empty = write_jsonl(tmp_path / "empty.jsonl", [])
    chats = write_jsonl(tmp_path / "chats.jsonl", [
        {"id": f"c{i}", "messages": [{"role": "user", "content": "hello there"},
                                     {"role": "assistant", "content": "hi, how can I help"},
                                     {"role": "user", "content": "tell me a joke"},
                                     {"role": "assistant", "content": "why did the chicken cross the road"}]}
        for i in range(4)])
    out = str(tmp_path / "m.json")
    db = str(tmp_path / "s.duckdb")
    cases = [([empty], "no sessions in"), ([chats], "has a needed string"),
             ([chats, "--train-share", "1.5"], "--train-share must be between 0 and 1"),
             ([chats, "--split", "random"], "--split must be one of time, none")]
    for args, message in cases:
        result = runner.invoke(app, ["learn", *args, "--out", out, "--db", db])
        assert result.exit_code == 1, result.output
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output, result.output
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**json.loads(NeedModel.default().to_json()), "version": 0}))
    result = runner.invoke(app, ["recommend", chats, "--window", "4000", "--strategy", f"learned:model={old}",
                                 "--db", db])
    assert result.exit_code == 1 and "a learned model of version 0" in result.output, result.output


@pytest.mark.slow
def test_learn_fits_judges_and_stores(tmp_path):
    out, db = str(tmp_path / "mine.json"), str(tmp_path / "learn.duckdb")
    result = CliRunner().invoke(app, ["learn", "sample:agent_sessions", "--limit", "10", "--out", out, "--window",
                                      "4000", "--db", db], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Fitted on 7 session(s)" in text and "Judged on the 3 later session(s)" in text
    assert "hindsight limit" in text and "learned against recommended's curve" in text
    assert re.search(r"The issue's check at 4,000: .*: (met|not met)\.", text)
    model = NeedModel.load(out)
    assert len(model.about["trained_on"]) == 7
    with store.reading(db) as con:
        record = store.learn_runs(con).iloc[0]
        assert record["model_sha256"] and len(record["test"]) == 3 and record["results"]["versus_recommended"]
        units = con.execute("SELECT label, count(*) AS n, count(limit_kept) AS limited FROM results WHERE run_id = ? "
                            "GROUP BY label", [record["run_id"]]).df()
    assert any(label.startswith("learned:model=") for label in units["label"])
    assert (units["n"] == units["limited"]).all()
    assert learn(["sample:agent_sessions"], out, windows=(4000,), limit=10, db=db).learn_id == record["learn_id"]
