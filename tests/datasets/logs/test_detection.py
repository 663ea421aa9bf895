"""Logs are recognised by content, in files and folders that mix them with ordinary ctxlab records;
``<format>:<path>`` forces a format; replay and calibration work on a mixed folder."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

import ctxlab.cli  # noqa: F401  (registers every command)
from ctxlab.cli.app import app
from ctxlab.datasets import describe_source, load_conversations
from ctxlab.datasets.logs import FORMATS, detect, list_formats, split_format
from ctxlab.errors import CtxlabError, InvalidInputError
from ctxlab.replay import ReplayConfig, replay
from ctxlab.tokens.calibrated import Calibration
from tests.datasets.logs.helpers import FIXTURES

MIXED = FIXTURES / "mixed"
MIXED_IDS = ["chat-1", "chat-2", "5b1f0c7e-2d4a-4e8b-9c3f-1a2b3c4d5e6f", "5b1f0c7e-2d4a-4e8b-9c3f-1a2b3c4d5e6f:9e8d7c6b",
             "0199aaaa-1111-7000-8000-000000000001", "oh-session-1", "7c2e9a40-5d1b-4f6e-8a3c-2b1d0e9f8a7b", "swe_agent"]


def test_a_mixed_folder_loads_every_log_and_the_plain_records_in_path_order():
    conversations = list(load_conversations(str(MIXED)))
    assert [c.id for c in conversations] == MIXED_IDS
    assert [c.meta.get("format") for c in conversations] == [
        None, None, "claude_code", "claude_code", "codex", "openhands", "pi", "swe_agent"]
    assert conversations[5].meta["source"] == str(MIXED / "openhands" / "oh-session-1")


@pytest.mark.parametrize(("name", "first"), [
    ("claude_code", {"type": "user", "uuid": "u", "parentUuid": None, "sessionId": "s", "message": {}}),
    ("claude_code", {"type": "summary", "summary": "t", "leafUuid": "u"}),
    ("codex", {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}),
    ("codex", {"id": "x", "timestamp": "t", "instructions": None}),
    ("pi", {"type": "session", "id": "x", "cwd": "/", "timestamp": "t"}),
])
def test_jsonl_formats_are_detected_from_their_first_lines(name, first):
    assert detect([first], "jsonl") is FORMATS.get(name)


@pytest.mark.parametrize(("name", "first"), [
    ("swe_agent", {"trajectory": [], "info": {}}),
    ("swe_agent", {"history": [], "info": {}}),
    ("openhands", {"id": 0, "source": "agent", "action": "system", "args": {}}),
])
def test_json_formats_are_detected_from_their_first_document(name, first):
    assert detect([first], "json") is FORMATS.get(name)


@pytest.mark.parametrize("value", [
    {"id": "c", "messages": [], "type": "user", "sessionId": "s"},  # a record, whatever else it has
    {"id": "c", "conversations": []}, {"type": "user"}, {"id": "x"}, [1, 2], "text",
])
def test_ordinary_records_and_other_values_are_not_logs(value):
    assert detect([value], "jsonl") is None and detect([value], "json") is None


def test_format_prefixes():
    assert list_formats() == ["aider", "claude_code", "codex", "gemini_cli", "gemini_responses", "inspect", "openhands",
                              "pi", "swe_agent"]
    assert split_format("codex:~/x") == (FORMATS.get("codex"), "~/x")
    assert split_format("sample:chats") == (None, "sample:chats")
    assert split_format("codex:") == (None, "codex:")


def test_a_forced_format_expands_home_and_is_described(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    shutil.copy(MIXED / "pi.jsonl", tmp_path / "s.jsonl")
    [conv] = load_conversations("pi:~/s.jsonl")
    assert conv.meta["format"] == "pi" and conv.meta["source"] == "~/s.jsonl"
    info = describe_source("pi:~/s.jsonl")
    assert (info.name, info.kind, info.location) == ("s", "pi", str(tmp_path / "s.jsonl"))
    assert info.fingerprint == describe_source(str(tmp_path / "s.jsonl")).fingerprint


def test_a_forced_format_reads_other_logs_as_that_format_and_says_what_failed():
    path = MIXED / "claude_code.jsonl"
    with pytest.raises(InvalidInputError) as caught:
        list(load_conversations(f"codex:{path}"))
    assert caught.value.where == str(path)
    assert caught.value.reason == "no conversation messages found (is this a codex log?)"


def test_a_forced_format_refuses_files_it_does_not_read():
    with pytest.raises(CtxlabError, match="pi logs are .jsonl files, not '.traj'"):
        load_conversations(f"pi:{MIXED / 'swe_agent.traj'}")
    with pytest.raises(CtxlabError, match="no such file or folder: codex:/nonexistent"):
        load_conversations("codex:/nonexistent")


def test_a_forced_format_keeps_only_its_files_in_a_folder():
    assert [c.id for c in load_conversations(f"openhands:{MIXED}")] == ["oh-session-1"]
    assert [c.id for c in load_conversations(f"swe_agent:{MIXED / 'swe_agent.traj'}")] == ["swe_agent"]


def test_replay_works_on_a_mixed_folder(tmp_path):
    summary = replay(ReplayConfig([str(MIXED)], ["window_guard", "observation_masking"], [300, 4000], db=str(tmp_path / "r.duckdb"),
                     workers=0, quality=False, estimators=("chars4",)))
    assert (summary.status, summary.conversations, summary.errors, summary.skips) == ("finished", 8, 0, 0)


def test_calibrate_works_on_a_mixed_folder(tmp_path):
    out = tmp_path / "cal.json"
    result = CliRunner(env={"COLUMNS": "200"}).invoke(app, ["calibrate", str(MIXED), "--out", str(out)])
    assert result.exit_code == 0, result.output
    calibration = Calibration.load(out)
    assert calibration.n_train == sum(len(c.messages) for c in load_conversations(str(MIXED)))
    assert json.loads(out.read_text())["fitted_on"].startswith(f"{MIXED} (")


def test_the_readme_and_the_format_table_list_every_registered_format():
    """README.md's agent-log paragraph, the source-name column of docs/logs.md's first table and its
    list of forced formats name exactly `FORMATS`."""
    root = FIXTURES.parents[3]
    readme = (root / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("Real agent session logs load too"):readme.index("## Command line")]
    logs = (root / "docs" / "logs.md").read_text(encoding="utf-8")
    table = logs[logs.index("| format | where the logs live | source name |"):logs.index("`ctxlab logs find` lists")]
    named = {row.rstrip().rstrip("|").rsplit("|", 1)[1].strip().strip("`") for row in table.splitlines()[2:] if row}
    forced = logs[logs.index("`<format>:<path>` forces a format"):logs.index("## What every importer does")]
    for name in FORMATS:
        assert f"`{name}`" in paragraph and f"`{name}:" in forced, name
    assert named == set(FORMATS)
