"""SWE-agent trajectories: the history is the chat (system prompt, tool calls, observations as tool
results), thinking blocks as metadata, run totals as usage, step-only trajectories as text chat."""

from __future__ import annotations

import json

from tests.datasets.logs.helpers import CODE, FIXTURES, TEST, load_one, shape

TRAJ = FIXTURES / "swe_agent" / "calc__calc-1.traj"


def test_history_becomes_an_openai_chat_of_the_main_agent():
    conv = load_one(TRAJ)
    assert conv.id == "calc__calc-1"
    assert shape(conv) == [
        ("system", "m0", None), ("user", "m1", None),
        ("assistant", "m2", ("call_s1", "call_s2")), ("tool", "call_s1", "call_s1"), ("tool", "call_s2", "call_s2"),
        ("assistant", "m5", ("call_s3",)), ("tool", "call_s3", "call_s3"),
        ("assistant", "m7", ("call_s4",)), ("tool", "call_s4", "call_s4"),
    ]
    assert conv.messages[0].content.startswith("SETTING: You are an autonomous programmer")
    assert [m.content for m in conv.messages[3:5]] == ["OBSERVATION:\n" + CODE, "OBSERVATION:\n" + TEST]
    edit = conv.messages[5].tool_calls[0]  # arguments given as an object become compact JSON
    assert edit.arguments == ('{"command":"str_replace","path":"/calc/calc.py",'
                              '"old_str":"return round(a + b)","new_str":"return a + b"}')
    assert conv.meta["skipped"] == {"agent:reviewer": 1}


def test_meta_has_thinking_totals_and_model_but_no_per_call_usage():
    meta = load_one(TRAJ).meta
    assert meta["thinking"] == [{"message_id": "m2", "text": "The bug is in add(); check what the test expects."}]
    assert meta["usage_total"] == {"prompt_tokens": 5400, "output_tokens": 310, "api_calls": 3, "cost_usd": 0.0123}
    assert meta["notes"] == ["run totals only: 5,400 tokens sent in 3 calls"]
    assert meta["provider_calls"] == [] and meta["compactions"] == []
    assert (meta["model"], meta["exit_status"]) == ("claude-sonnet-4-20250514", "submitted")


def test_a_trajectory_without_history_is_a_text_chat_of_its_steps(tmp_path):
    traj = json.loads(TRAJ.read_text())
    del traj["history"], traj["replay_config"]
    path = tmp_path / "old.traj"
    path.write_text(json.dumps(traj))
    conv = load_one(path)
    assert [(m.role, m.content) for m in conv.messages][:2] == [("assistant", "Let me look at both files."),
                                                                ("user", CODE)]
    assert len(conv.messages) == 6 and "model" not in conv.meta


def test_an_observation_for_two_call_ids_answers_the_first_and_marks_the_second(tmp_path):
    traj = json.loads(TRAJ.read_text())
    history = traj["history"]
    history[3]["tool_call_ids"] = ["call_s1", "call_s2"]
    del history[4]
    path = tmp_path / "merged.traj"
    path.write_text(json.dumps(traj))
    conv = load_one(path)
    assert shape(conv)[3:5] == [("tool", "call_s1", "call_s1"), ("tool", "call_s2:no-result", "call_s2")]
    assert conv.meta["repairs"] == ["tool call 'call_s2' has no result in the log; added [no result recorded]"]


def test_the_model_comes_from_the_run_folder_when_the_trajectory_has_no_config(tmp_path):
    """SWE-agent names a run folder {model}__{data}__{config}__t-..__p-..__c-..__install-..."""
    data = json.loads(TRAJ.read_text())
    data.pop("replay_config", None)
    run = tmp_path / "gpt4__swe-bench-dev-easy_first_only__default__t-0.00__p-0.95__c-3.00__install-1"
    run.mkdir()
    (run / "calc__calc-1.traj").write_text(json.dumps(data))
    meta = load_one(run / "calc__calc-1.traj").meta
    assert (meta["model"], meta["model_source"]) == ("gpt4", f"run folder {run.name}")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "x.traj").write_text(json.dumps(data))
    assert "model" not in load_one(tmp_path / "plain" / "x.traj").meta


def test_a_run_reporting_calls_but_no_tokens_has_a_note_not_a_usage(tmp_path):
    """A demonstration replayed with SWE-agent's ``replay`` model calls no provider: 0 tokens is no
    measurement, so there is no ``usage_total`` to mislead a cost check, and a note says why."""
    traj = json.loads(TRAJ.read_text())
    traj["info"]["model_stats"].update(tokens_sent=0, tokens_received=0, instance_cost=0)
    path = tmp_path / "zero.traj"
    path.write_text(json.dumps(traj))
    meta = load_one(path).meta
    assert "usage_total" not in meta
    assert meta["notes"] == ["model_stats reports 0 tokens for 3 calls: no usage to calibrate or price"]
    config = json.loads(traj["replay_config"])
    config["agent"]["model"]["name"] = "replay"
    traj["replay_config"] = json.dumps(config)
    path.write_text(json.dumps(traj))
    assert load_one(path).meta["notes"] == [
        "a demonstration replayed with model 'replay' (scripted actions, real environment output; 3 calls, 0 tokens, "
        "no provider called): strategies can replay it, calibration and pricing have nothing to use"]
