"""`ReplayConfig`, the one settings object: normalization, validation, and the CLI building it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from ctxlab.cli import app
from ctxlab.datasets import sources
from ctxlab.datasets.logs import files as log_files
from ctxlab.errors import CtxlabError
from ctxlab.replay import ReplayConfig, replay
from ctxlab.replay.config import DEFAULT_ESTIMATORS, DEFAULT_WINDOWS
from tests.replay.helpers import agent_record, write_jsonl


def test_single_values_become_tuples_and_modes_expand():
    config = ReplayConfig("a.jsonl", ["noop"], [100], counters="chars4", references=["o200k_base", "o200k_base"],
                          modes="both")
    assert config.sources == ("a.jsonl",) and config.strategies == ("noop",) and config.windows == (100,)
    assert config.counters == ("chars4",) and config.references == ("o200k_base",)
    assert config.modes == ("final", "per-turn")


@pytest.mark.parametrize("bad, message", [
    ({"sources": ()}, "at least one source"),
    ({"windows": (0,)}, "positive integers"),
    ({"modes": "sideways"}, "unknown mode"),
    ({"engine": "spark"}, "unknown engine"),
    ({"references": ()}, "reference tokenizer"),
])
def test_invalid_settings_are_named(bad, message):
    with pytest.raises(CtxlabError, match=message):
        ReplayConfig(**{"sources": ("a.jsonl",), **bad})


@pytest.fixture
def seen(monkeypatch) -> dict:
    """The config `ctxlab replay` would run, captured instead of running it."""
    seen: dict = {}

    def fake_replay(config):
        seen["config"] = config
        return SimpleNamespace(db=config.db, run_id="r", name="n")

    monkeypatch.setattr("ctxlab.cli.replay.run_replay", fake_replay)
    monkeypatch.setattr("ctxlab.cli.replay.report_summary", lambda summary: None)
    monkeypatch.setattr("ctxlab.cli.replay.print_summary", lambda *args: None)
    return seen


def test_cli_builds_the_same_config_the_api_takes(seen, tmp_path):
    db = str(tmp_path / "x.duckdb")
    result = CliRunner().invoke(app, ["replay", "sample:chats", "--strategy", "noop", "--mode", "both",
                                      "--db", db, "--no-quality"])
    assert result.exit_code == 0, result.output
    assert seen["config"] == ReplayConfig(("sample:chats",), ("noop",), DEFAULT_WINDOWS, modes="both", db=db,
                                          quality=False, estimators=DEFAULT_ESTIMATORS)


def test_help_quotes_the_default_windows():
    result = CliRunner().invoke(app, ["replay", "--help"])
    assert f"[default: {' '.join(map(str, DEFAULT_WINDOWS))}]" in " ".join(result.output.split())


def test_budget_still_works_as_a_hidden_alias_of_window(seen, tmp_path):
    """Scripts written before issue 21 pass ``--budget``: it adds windows like ``--window`` does,
    and the help shows ``--window`` only."""
    args = ["replay", "sample:chats", "--strategy", "noop", "--db", str(tmp_path / "x.duckdb")]
    result = CliRunner().invoke(app, [*args, "--window", "700", "--budget", "3000", "--budget", "900"])
    assert result.exit_code == 0, result.output
    assert seen["config"].windows == (700, 3000, 900)
    assert CliRunner().invoke(app, [*args, "--budget", "500"]).exit_code == 0
    assert seen["config"].windows == (500,)
    help_text = CliRunner().invoke(app, ["replay", "--help"]).output
    assert "--window" in help_text and "--budget" not in help_text


def test_a_folder_source_is_resolved_and_listed_once_per_replay(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    folder.mkdir()
    for i in range(2):
        write_jsonl(folder / f"part{i}.jsonl", [agent_record(i)])
    calls = {"resolve": 0, "list": 0}
    resolve, listing = sources.resolve, log_files.folder_units

    def counted(name, fn):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(sources, "resolve", counted("resolve", resolve))
    monkeypatch.setattr(log_files, "folder_units", counted("list", listing))
    summary = replay(ReplayConfig(str(folder), ("noop",), (1000,), db=str(tmp_path / "r.duckdb"), workers=0,
                                  estimators=(), quality=False))
    assert summary.conversations == 2
    assert calls == {"resolve": 1, "list": 1}
