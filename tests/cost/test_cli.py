"""`ctxlab cost LOGS`: the table and the JSON form over recorded logs; errors are one line."""

from __future__ import annotations

import json

from typer.testing import CliRunner

import ctxlab.cli  # noqa: F401  (registers every command)
from ctxlab.cli.app import app
from ctxlab.messages import Conversation
from tests.cost.sessions import recorded

runner = CliRunner(env={"COLUMNS": "220"})


def write(tmp_path, *conversations: Conversation):
    path = tmp_path / "logs.jsonl"
    path.write_text("".join(json.dumps(c.to_record()) + "\n" for c in conversations), encoding="utf-8")
    return path


def invoke(*args: object):
    return runner.invoke(app, ["cost", *map(str, args)])


def test_json_lists_each_session_with_recorded_and_predicted_totals(tmp_path):
    log = recorded((1, 0, 0, 5000), (3, 0, 5000, 400), (5, 0, 0, 5700), model="claude-sonnet-4-5")
    result = invoke(write(tmp_path, log), "--json")
    assert result.exit_code == 0, result.output
    [session] = json.loads(result.output)
    assert session["session"] == "log" and session["calls"] == 3 and session["model"] == "claude-sonnet-4-5"
    assert session["recorded"]["cache_read_tokens"] == 5000 and session["predicted"]["cache_read_tokens"] == 10400
    assert session["cache_read_match_rate"] == 2 / 3 and session["unexplained_misses"] == 1
    assert session["predicted"]["cost_usd"] < session["recorded"]["cost_usd"]


def test_the_table_shows_sessions_their_total_and_the_worst_calls(tmp_path):
    logs = [recorded((1, 0, 0, 5000), (3, 0, 0, 5400)), recorded((1, 0, 0, 5000), (3, 0, 5000, 400))]
    logs[1] = Conversation("other", logs[1].messages, meta=logs[1].meta)
    result = invoke(write(tmp_path, *logs), "--model", "gpt-4o")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "read match" in text and "all sessions" in text and "unexplained miss" in text
    assert "50.0%" in text and "100.0%" in text and "75.0%" in text


def test_an_unknown_model_is_one_line_naming_close_models(tmp_path):
    result = invoke(write(tmp_path, recorded((1, 0, 0, 5000))), "--model", "claude-sonet-4-5")
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1 and "close names" in lines[0] and "claude-sonnet-4-5" in lines[0]


def test_logs_without_per_call_usage_are_one_line(reallogs):
    result = invoke(reallogs / "swe_agent")
    assert result.exit_code == 1 and "no per-call usage" in result.output and "Traceback" not in result.output


# Calls per session of ../shared/reallogs/claude_code: its README's distinct assistant message ids.
REAL_CALLS = {"4d5611e5-241a-462a-8d15-5122611a9569": 139, "fa812bfe-b295-4cca-9c2f-fdf01028cb46": 157,
              "fa812bfe-b295-4cca-9c2f-fdf01028cb46:a93ccab": 11, "fa812bfe-b295-4cca-9c2f-fdf01028cb46:aa84377": 9,
              "1af7fc5e-8455-4414-9ccd-011d40f70b2a": 7}
SONNET_4 = "claude-sonnet-4-20250514"


def test_the_real_claude_code_sessions_are_all_priced(reallogs):
    """Every session of the folder is priced, the Claude Code 1.0.x ones (Claude Sonnet 4, which
    litellm's map lacks under its API name) under the Bedrock entry of the same model."""
    result = invoke(reallogs / "claude_code", "--json")
    assert result.exit_code == 0 and not result.stderr, result.output
    sessions = {s["session"]: s for s in json.loads(result.stdout)}
    assert {s: sessions[s]["calls"] for s in REAL_CALLS} == REAL_CALLS
    for main in ("4d5611e5-241a-462a-8d15-5122611a9569", "fa812bfe-b295-4cca-9c2f-fdf01028cb46"):
        assert sessions[main]["model"] == "claude-opus-4-6" and sessions[main]["cache_read_match_rate"] >= 0.9
    sonnet = [s for s in sessions.values() if s["model"] == SONNET_4]
    assert len(sonnet) >= 2 and {s["priced_as"] for s in sonnet} == {f"anthropic.{SONNET_4}-v1:0"}
    assert all(s["priced_as"] is None for s in sessions.values() if s["model"] != SONNET_4)
    assert {s["model"] for s in sessions.values()} == {"claude-opus-4-6", "claude-sonnet-4-5-20250929", SONNET_4,
                                                        "claude-haiku-4-5-20251001"}


def test_the_table_says_which_models_were_priced_under_another_name(tmp_path):
    log = recorded((1, 0, 0, 5000), (3, 0, 5000, 400), model=SONNET_4)
    result = invoke(write(tmp_path, log))
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"Note: {SONNET_4} priced as anthropic.{SONNET_4}-v1:0: the same model under its Amazon Bedrock name" in text


def two_models(tmp_path, *models: str):
    logs = [recorded((1, 0, 0, 5000), (3, 0, 5000, 400), model=m) for m in models]
    return write(tmp_path, *(Conversation(f"s{i}", log.messages, meta=log.meta) for i, log in enumerate(logs)))


def test_a_session_that_cannot_be_priced_is_named_and_the_rest_are_priced(tmp_path):
    source = two_models(tmp_path, "no-such-model-1", "claude-sonnet-4-5", "gpt-4o-nope")
    result = invoke(source)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Not priced, 2 session(s):" in text and "s1" in text and "claude-sonnet-4-5" in text
    assert "s0: unknown model 'no-such-model-1': litellm's bundled price map has no price for it" in text
    assert "s2: unknown model 'gpt-4o-nope'" in text and "price it with another model (--model)" in text
    as_json = invoke(source, "--json")
    assert as_json.exit_code == 0 and [s["session"] for s in json.loads(as_json.stdout)] == ["s1"]
    assert "s0: unknown model" in as_json.stderr and "s2: unknown model" in as_json.stderr


def test_when_no_session_can_be_priced_each_is_named_and_the_exit_is_1(tmp_path):
    result = invoke(two_models(tmp_path, "no-such-model-1", "no-such-model-2"))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "s0: unknown model 'no-such-model-1'" in result.stderr and "s1: unknown model 'no-such-model-2'" in result.stderr
    assert "could be priced (2 listed above)" in result.stderr


def test_the_real_aider_sessions_are_priced_as_estimates_and_not_checked(reallogs):
    """Aider's counts are its own rounded estimates: priced, flagged, no cache verdicts; its
    sessions on a local model with no price are named, the others priced."""
    result = invoke(reallogs / "aider")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Note: 39 call(s) in 8 session(s) record counts that are not the provider's (Aider's printed counts" in text
    assert "unexplained miss" not in text and "Calls whose cache read" not in text
    assert "Not priced, 2 session(s)" in text and "lm_studio/qwen3.6" in text
    sessions = json.loads(invoke(reallogs / "aider", "--json").stdout)
    assert len(sessions) == 8 and all(s["estimated_calls"] == s["calls"] and s["cache_read_match_rate"] is None
                                      and s["unexplained_misses"] == 0 for s in sessions)
