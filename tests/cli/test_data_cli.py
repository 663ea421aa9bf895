"""CLI commands over datasets and counters: estimate, calibrate, validate, counters, strategies,
generate; bad input ends in one error line, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ctxlab.cli  # noqa: F401  (registers every command)
from ctxlab.cli.app import app
from ctxlab.tokens.calibrated import Calibration

BAD = Path(__file__).parents[1] / "datasets" / "bad"
COMMANDS = ["estimate", "calibrate", "validate", "counters", "strategies", "generate"]
runner = CliRunner(env={"COLUMNS": "200"})  # wide enough that rich does not wrap cells


def invoke(*args: str):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def chats(tmp_path) -> Path:
    """A small dataset with prose, Chinese, code, JSON and a tool call."""
    records = []
    for i in range(6):
        records.append({"id": f"c{i}", "tools": [{"type": "function", "function": {
            "name": "read_file", "description": "Read a file.", "parameters": {"type": "object", "properties": {
                "path": {"type": "string", "description": "The path."}}}}}], "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": f"请解释第 {i} 个函数为什么返回空值，谢谢。"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "k", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "a.py"}'}}]},
            {"role": "tool", "tool_call_id": "k", "content": f"def f{i}(x):\n    return None\n"},
            {"role": "assistant", "content": json.dumps({"answer": "it returns None", "line": i})},
            {"role": "assistant", "content": "The function returns None because it never computes a value."},
        ]})
    path = tmp_path / "chats.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help(name):
    result = invoke(name, "--help")
    assert result.exit_code == 0 and "Usage" in result.output


def test_estimate_prints_overall_and_by_kind(chats):
    result = invoke("estimate", chats)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Token estimators vs o200k_base" in out and "6 conversations" in out and "36 messages" in out
    for name in ("chars4", "chars2", "chars3", "ascii_cjk", "calibrated"):
        assert name in out
    for kind in ("prose", "cjk", "code", "json"):
        assert kind in out
    assert "chars4 undercounts cjk" in out


def test_estimate_by_language_with_chosen_counters_and_references(chats):
    result = invoke("estimate", chats, "--by", "language", "--counter", "chars3", "--reference", "cl100k_base",
                    "--reference", "o200k_base", "--limit", "2")
    assert result.exit_code == 0, result.output
    assert "vs cl100k_base" in result.output and "vs o200k_base" in result.output
    assert "MAPE by language" in result.output and " zh " in result.output and "chars4" not in result.output


def test_estimate_by_counter_only_and_bad_by(chats):
    result = invoke("estimate", chats, "--by", "counter")
    assert result.exit_code == 0 and "MAPE by" not in result.output
    bad = invoke("estimate", chats, "--by", "colour")
    assert bad.exit_code == 1 and "error: --by must be counter, kind or language" in bad.output


@pytest.mark.parametrize("command", ["estimate", "validate"])
def test_bad_input_is_one_error_line_without_skip_invalid(command):
    path = BAD / "orphan_tool_result.jsonl"
    result = invoke(command, path)
    assert result.exit_code == 1
    assert result.output == f"error: {path}:2: message 1 is an orphan tool result (no call 'call_9' before it)\n"


def test_skip_invalid_lists_the_skips(chats):
    result = invoke("estimate", chats, BAD / "unknown_role.jsonl", "--skip-invalid", "--by", "counter")
    assert result.exit_code == 0, result.output
    assert "Skipped 1 record(s)" in result.output and "unknown role 'robot'" in result.output


def test_validate_counts_and_lists_every_skip(chats):
    result = invoke("validate", chats, BAD / "malformed_json.jsonl", BAD / "empty_conversation.jsonl",
                    "--skip-invalid", "--counter", "chars4")
    assert result.exit_code == 0, result.output
    from ctxlab.datasets import load_conversations
    from ctxlab.tokens import get_counter

    tokens = sum(get_counter("chars4").count_messages(c.messages, c.tools) for c in load_conversations(chats))
    rows = {cells[0]: cells[1:] for line in result.output.splitlines()
            if len(cells := [c.strip() for c in line.split("│")[1:-1]]) == 6}
    assert rows[str(chats)] == ["6", "36", "6", f"{tokens:,}", "0"]
    assert rows[str(BAD / "empty_conversation.jsonl")] == ["2", "4", "0", rows[str(BAD / "empty_conversation.jsonl")][3], "1"]
    assert "Skipped 2 record(s)" in result.output
    assert "malformed_json.jsonl:2: malformed JSON" in result.output
    assert "empty conversation" in result.output


def test_unknown_source_and_sample_are_clean_errors(tmp_path):
    missing = invoke("validate", tmp_path / "nope.jsonl")
    assert missing.exit_code == 1 and missing.output.startswith("error: no such file or folder")
    sample = invoke("validate", "sample:definitely_not_there")
    assert sample.exit_code == 1 and "error: unknown sample 'definitely_not_there'" in sample.output


def test_calibrate_writes_a_calibration_and_compares_with_the_seeds(chats, tmp_path):
    out = tmp_path / "cal" / "mine.json"
    result = invoke("calibrate", chats, "--reference", "cl100k_base", "--out", out, "--holdout", chats)
    assert result.exit_code == 0, result.output
    calibration = Calibration.load(out)
    assert calibration.reference == "cl100k_base" and calibration.n_train == 36
    assert str(chats) in calibration.fitted_on and "6 conversations" in calibration.fitted_on
    assert "train MAPE" in result.output and "held-out MAPE" in result.output
    assert "calibrated (new)" in result.output and "ascii_cjk" in result.output
    used = invoke("estimate", chats, "--counter", f"calibrated:{out}", "--reference", "cl100k_base")
    assert used.exit_code == 0 and f"calibrated:{out}" in used.output


def test_counters_lists_exact_and_estimated():
    result = invoke("counters")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert any("o200k_base" in line and "exact" in line for line in lines)
    assert any("chars4" in line and "estimate" in line for line in lines)
    assert "hf:<tokenizer.json>" in result.output and "calibrated" in result.output


def test_strategies_lists_parameters_and_defaults():
    from ctxlab.strategies import list_strategies

    result = invoke("strategies")
    assert result.exit_code == 0
    for name in list_strategies():
        assert name in result.output
    assert "(no parameters)" in result.output  # noop


def test_generate_writes_jsonl(tmp_path):
    out = tmp_path / "gen" / "mixed.jsonl"
    result = invoke("generate", "--kind", "chat", "--n", "3", "--seed", "7", "--out", out)
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 3 and len({r["id"] for r in records}) == 3
    for record in records:  # chats: users and assistants taking turns, no tools, ground-truth facts
        roles = [m["role"] for m in record["messages"] if m["role"] != "system"]
        assert roles[0] == "user" and {"user", "assistant"} == set(roles), roles
        assert not any(m.get("tool_calls") for m in record["messages"]) and record["meta"]["facts"]
    again = tmp_path / "again.jsonl"
    invoke("generate", "--kind", "chat", "--n", "3", "--seed", "7", "--out", again)
    assert again.read_bytes() == out.read_bytes()
    assert invoke("validate", out).exit_code == 0
    bad = invoke("generate", "--kind", "novel", "--out", out)
    assert bad.exit_code == 1 and "--kind must be agent, chat, mixed or history" in bad.output


def test_offline_hub_dataset_is_a_one_line_error(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_HOME": str(tmp_path)}
    code = "from ctxlab.cli import main; main()"
    result = subprocess.run([sys.executable, "-c", code, "validate", "hf:nobody/nothing"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.startswith("error: hf:nobody/nothing:train: cannot load the dataset")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
