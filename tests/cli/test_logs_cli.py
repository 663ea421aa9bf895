"""CLI over agent logs: `calibrate --reference provider:<model>` and `compactions`; errors are one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ctxlab.cli  # noqa: F401  (registers every command)
from ctxlab.cli.app import app
from ctxlab.tokens import get_counter
from ctxlab.tokens.calibrated import Calibration
from tests.provider_logs import FRAMING, MODEL, billed_log, compacted_log, write_logs

runner = CliRunner(env={"COLUMNS": "200"})


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("logs")
    train = write_logs(folder / "train.jsonl", [billed_log(s) for s in range(12)] + [compacted_log(50)])
    held = write_logs(folder / "held.jsonl", [billed_log(s) for s in range(200, 206)])
    return Path(train), Path(held)


def test_calibrate_against_the_provider_writes_a_loadable_counter(logs, tmp_path):
    train, held = logs
    out = tmp_path / "my-counter.json"
    result = invoke("calibrate", train, "--reference", f"provider:{MODEL}", "--out", out, "--holdout", held)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"Per-delta error against provider:{MODEL}" in text and "provider deltas" in text
    assert "train MAPE" in text and "held-out MAPE" in text
    for name in ("calibrated (new)", "chars4", "chars2", "chars3", "ascii_cjk", "o200k_base"):
        assert name in text
    calibration = Calibration.load(out)
    assert calibration.reference == f"provider:{MODEL}" and abs(calibration.per_message - FRAMING) < 1.5
    assert get_counter(f"calibrated:{out}").calibration == calibration


def test_calibrate_against_every_provider_model(logs, tmp_path):
    out = tmp_path / "all.json"
    result = invoke("calibrate", logs[0], "--reference", "provider:*", "--out", out)
    assert result.exit_code == 0, result.output
    assert Calibration.load(out).reference == "provider:*"


def test_calibrate_against_a_model_the_logs_lack_is_one_line(logs, tmp_path):
    result = invoke("calibrate", logs[0], "--reference", "provider:gpt-5", "--out", tmp_path / "x.json")
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "no usable provider deltas for provider:gpt-5" in lines[0] and MODEL in lines[0]
    assert not (tmp_path / "x.json").exists()


def test_compactions_prints_the_agent_beside_ctxlab(logs):
    result = invoke("compactions", logs[0])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Recorded compactions (tokens: o200k_base;" in out and "Mean over compactions" in out
    assert "log-50" in out
    for candidate in ("agent", "compaction", "sliding_window"):
        assert candidate in out
    assert "%" in out


def test_compactions_with_a_strategy_spec_and_bad_records(tmp_path):
    good = compacted_log(51).to_record()
    source = tmp_path / "mixed.jsonl"
    source.write_text(json.dumps(good) + "\n" + json.dumps({"id": "bad", "messages": "nope"}) + "\n")
    result = invoke("compactions", source, "--strategy", "compaction:keep_recent_rounds=1", "--counter", "chars4")
    assert result.exit_code == 1 and "Traceback" not in result.output
    result = invoke("compactions", source, "--strategy", "compaction:keep_recent_rounds=1", "--counter", "chars4",
                    "--skip-invalid")
    assert result.exit_code == 0, result.output
    assert "compaction:keep_recent_rounds=1" in result.output and "tokens: chars4" in result.output
    assert "Skipped 1 record" in result.output


def test_compactions_without_any_is_one_line(tmp_path):
    source = write_logs(tmp_path / "plain.jsonl", [billed_log(1)])
    result = invoke("compactions", source)
    assert result.exit_code == 1 and "no recorded compactions" in result.output and "Traceback" not in result.output
    result = invoke("compactions", source, "--strategy", "no_such_strategy")
    assert result.exit_code == 1 and "no_such_strategy" in result.output and "Traceback" not in result.output


def test_calibrate_warns_when_there_are_fewer_observations_than_weights_can_bear(logs, tmp_path):
    few = write_logs(tmp_path / "few.jsonl", [billed_log(7)])
    result = invoke("calibrate", few, "--reference", f"provider:{MODEL}", "--out", tmp_path / "few.json")
    assert result.exit_code == 0, result.output
    assert "warning:" in result.output and "means little" in " ".join(result.output.split())
    many = invoke("calibrate", logs[0], "--reference", f"provider:{MODEL}", "--out", tmp_path / "many.json")
    assert "warning:" not in many.output
