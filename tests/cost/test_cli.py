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


def test_the_real_claude_code_session(reallogs):
    result = invoke(reallogs / "claude_code", "--json")
    assert result.exit_code == 0, result.output
    main = next(s for s in json.loads(result.output) if ":" not in s["session"])
    assert main["model"] == "claude-opus-4-6" and main["cache_read_match_rate"] >= 0.9
