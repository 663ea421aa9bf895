"""CLI over agent logs: `calibrate --reference provider:<model>`, `compactions` and `logs check`;
errors are one line."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ctxlab.cli  # noqa: F401  (registers every command)
from ctxlab.cli.app import app
from ctxlab.datasets import load_conversations
from ctxlab.datasets.logs.deltas import delta_spans
from ctxlab.metrics.provider import estimate_span
from ctxlab.tokens import get_counter
from ctxlab.tokens.calibrated import Calibration
from tests.cost.conftest import REALLOGS
from tests.datasets.logs.pi_billed import pi_session, write_session
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
    assert "Recorded compactions graded by the calls up to the next one (tokens: o200k_base;" in out
    assert "Regex fact recall at the agent's size (tokens: o200k_base;" in out and "Mean over compactions" in out
    assert "log-50" in out
    for candidate in ("agent", "compaction", "sliding_window", "claude_code", "anthropic_compaction"):
        assert candidate in out
    assert "%" in out


def test_compactions_json_lines_and_the_store(tmp_path):
    from ctxlab import store
    from ctxlab.store.compaction_grades import compaction_grades

    source = REALLOGS / "claude_code" / "fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl"
    db = tmp_path / "grades.duckdb"
    result = invoke("compactions", source, "--json", "--standin", "claude_code", "--standin", "pi", "--db", db)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["candidate"] for r in rows] == ["agent", "claude_code", "pi"]
    for r in rows:
        assert {"conversation_id", "at", "index", "trigger", "candidate", "needed", "needed_kept", "needed_recall",
                "in_context_recall", "refetch_observed_tokens", "refetch_model_tokens"} <= set(r)
        assert (r["at"], r["index"], r["trigger"], r["needed"]) == (302, 302, "auto", 25)
        assert r["needed_recall"] == pytest.approx(r["needed_kept"] / r["needed"])
    assert rows[0]["refetch_observed_tokens"] > 0 and rows[1]["refetch_observed_tokens"] is None
    with store.reading(db) as con:
        stored = compaction_grades(con)
        assert store.current_version(con) == store.LATEST >= 9
    assert list(stored["candidate"]) == ["agent", "claude_code", "pi"] and set(stored["counter"]) == {"o200k_base"}
    assert list(stored["needed_kept"]) == [r["needed_kept"] for r in rows]


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
    result = invoke("compactions", source, "--standin", "no_such_preset")
    assert result.exit_code == 1 and "no_such_preset" in result.output and "Traceback" not in result.output


def test_calibrate_warns_when_there_are_fewer_observations_than_weights_can_bear(logs, tmp_path):
    few = write_logs(tmp_path / "few.jsonl", [billed_log(7)])
    result = invoke("calibrate", few, "--reference", f"provider:{MODEL}", "--out", tmp_path / "few.json")
    assert result.exit_code == 0, result.output
    assert "warning:" in result.output and "means little" in " ".join(result.output.split())
    many = invoke("calibrate", logs[0], "--reference", f"provider:{MODEL}", "--out", tmp_path / "many.json")
    assert "warning:" not in many.output


# ---- ctxlab logs check: one fidelity report per session, listing the repairs each import made ----

FIXTURES = Path(__file__).parents[1] / "datasets" / "logs" / "fixtures"


def claude_with_queued_message(folder: Path) -> Path:
    lines = (FIXTURES / "claude_code" / "session.jsonl").read_text().splitlines()
    removed = json.dumps({"type": "queue-operation", "operation": "remove", "content": "also check the docs",
                          "sessionId": "5b1f0c7e-2d4a-4e8b-9c3f-1a2b3c4d5e6f"})
    path = folder / "claude.jsonl"
    path.write_text("\n".join([*lines[:11], removed, *lines[11:]]) + "\n")
    return path


def codex_with_developer_note(folder: Path) -> Path:
    rollout = FIXTURES / "codex" / "rollout-2025-10-29T11-00-00-0199aaaa-1111-7000-8000-000000000001.jsonl"
    lines = rollout.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"call_id": "call_A", "output"' in line)
    note = json.dumps({"timestamp": "2025-10-29T11:00:04.000Z", "type": "response_item", "payload": {
        "type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Approved."}]}})
    path = folder / "rollout.jsonl"
    path.write_text("\n".join([*lines[:at], note, *lines[at:]]) + "\n")
    return path


def pi_with_failed_turns(folder: Path) -> Path:
    return write_session(folder / "pi.jsonl", pi_session(5, rounds=16, errored_every=4))


def openhands_edit(folder: Path) -> Path:
    from tests.datasets.logs.test_openhands import edit_events

    path = folder / "edit.json"
    path.write_text(json.dumps(edit_events({"formatted_output_and_error": "File created successfully at: /w/h.py"})))
    return path


def swe_agent_untagged_observation(folder: Path) -> Path:
    traj = json.loads((FIXTURES / "swe_agent" / "calc__calc-1.traj").read_text())
    tool = next(h for h in traj["history"] if h["role"] == "tool")
    tool.pop("tool_call_ids", None)
    tool.pop("tool_call_id", None)
    path = folder / "run.traj"
    path.write_text(json.dumps(traj))
    return path


@pytest.mark.parametrize(("make", "repair"), [
    (claude_with_queued_message, "a queued user message reached the model mid-turn"),
    (codex_with_developer_note, "moved the system message 'Approved.' logged between tool calls"),
    (pi_with_failed_turns, "pi never resends an errored or aborted turn"),
    (openhands_edit, "the model received extras.formatted_output_and_error"),
    (swe_agent_untagged_observation, "tool observation without tool_call_ids kept as a user message"),
])
def test_logs_check_lists_the_repairs_each_import_made(tmp_path, make, repair):
    result = invoke("logs", "check", make(tmp_path))
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "provider calls:" in text and "repairs (" in text and repair in text


def test_logs_check_reports_usable_deltas_and_the_worst_residuals_with_their_messages(tmp_path):
    source = write_logs(tmp_path / "logs.jsonl", [billed_log(3), compacted_log(4)])
    result = invoke("logs", "check", source, "--counter", "chars4", "--worst", "2")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "log-3" in out and "log-4" in out and "not usable, 1: a compaction between the calls" in out
    assert out.count("worst residuals (estimated with chars4)") == 2
    assert "assistant m" in out and "tool m" in out  # the span's messages, role and id first


def test_logs_check_prints_odd_log_text_as_text(tmp_path):
    odd = "[bold red]not markup[/] \x1b[31mred\x1b[0m \x00\x07 bell"
    log = billed_log(6)
    messages = (log.messages[0], replace(log.messages[1], content=odd), *log.messages[2:])
    source = write_logs(tmp_path / "odd.jsonl", [replace(log, messages=messages)])
    result = invoke("logs", "check", source, "--counter", "chars4", "--worst", "50")
    assert result.exit_code == 0, result.output
    assert "[bold red]not markup[/]" in result.output and "\x1b" not in result.output and "\x07" not in result.output


def test_logs_check_errors_are_one_line(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    result = invoke("logs", "check", empty)
    assert result.exit_code == 1 and "no conversations" in result.output and "Traceback" not in result.output
    result = invoke("logs", "check", empty, "--counter", "nope")
    assert result.exit_code == 1 and "nope" in result.output and "Traceback" not in result.output


# ---- calibrating on a pi session split in two by time ----

def test_a_calibration_on_the_first_half_of_a_pi_session_predicts_the_second(tmp_path):
    """A hand-written pi session billed by a known rule, with turns that failed while writing a large
    file (pi never resent them). `ctxlab calibrate` on the first half by time predicts the second
    half's deltas within 10% and well below the seed estimators; had the failed turns been imported,
    their spans would be deltas the fit cannot explain."""
    entries = pi_session(11, rounds=60)
    half = len(entries) // 2
    first = write_session(tmp_path / "first.jsonl", entries[:half])
    out = tmp_path / "pi.json"
    result = invoke("calibrate", first, "--reference", f"provider:{MODEL}", "--out", out)
    assert result.exit_code == 0, result.output
    assert "held-out MAPE (5-fold by time)" in " ".join(result.output.split())
    assert "not better than the best seed" not in result.output
    whole = next(iter(load_conversations(str(write_session(tmp_path / "all.jsonl", entries)))))
    boundary = len(next(iter(load_conversations(str(first)))).messages)
    later = [(whole, s) for s in delta_spans(whole) if s.skipped is None and s.start >= boundary]
    new = provider_mape(get_counter(f"calibrated:{out}"), later)
    seeds = {name: provider_mape(get_counter(name), later) for name in ("chars4", "chars2", "chars3", "ascii_cjk")}
    assert len(later) > 30 and new <= 0.10 and new < 0.7 * min(seeds.values()), (new, seeds)

    kept = [{**e, "message": {**e["message"], "stopReason": "toolUse"}} if e.get("message", {}).get("stopReason")
            == "error" else e for e in entries]  # as if the failed turns had been sent again
    wrong = invoke("calibrate", write_session(tmp_path / "kept.jsonl", kept), "--reference", f"provider:{MODEL}",
                   "--out", tmp_path / "kept.json")
    assert wrong.exit_code == 0 and "treated as outliers" in wrong.output
    failed = {e["id"] for e in entries if e.get("message", {}).get("stopReason") == "error"}
    named = {o.span for o in Calibration.load(tmp_path / "kept.json").outliers}
    assert named and all(any("delta:" in span for span in named) for _ in failed)


def provider_mape(counter, pairs) -> float:
    return sum(abs(estimate_span(counter, c, s) - s.actual) / s.actual for c, s in pairs) / len(pairs)


# ---- ctxlab logs check: one line per file first, refused files listed with their reason ----

def test_logs_check_prints_one_row_per_file_and_lists_refused_files_without_stopping(tmp_path):
    """A file with a bad line loads the rest and the bad line is named (file:line: reason); a file with
    nothing usable left is a refused row."""
    folder = tmp_path / "logs"
    folder.mkdir()
    claude_with_queued_message(folder)
    good = (FIXTURES / "pi" / "2025-10-29T12-00-00-000Z_7c2e9a40.jsonl").read_text().splitlines()
    (folder / "broken-pi.jsonl").write_text("\n".join([*good[:3], good[3][:-1] + "}}", *good[4:]]) + "\n")
    (folder / "refused-pi.jsonl").write_text("\n".join([good[0], good[3][:40]]) + "\n")
    (folder / "empty.jsonl").write_text("")
    (folder / "notes.md").write_text("# not a log\n")
    result = invoke("logs", "check", folder, "--counter", "chars4")
    assert result.exit_code == 0, result.output
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
            for line in result.output.splitlines() if line.startswith("│") and line.split("│")[1].strip()}
    assert set(rows) == {"claude.jsonl", "broken-pi.jsonl", "refused-pi.jsonl", "empty.jsonl"}
    assert rows["claude.jsonl"][:3] == ["claude_code", "2", "5"] and rows["claude.jsonl"][-2] == "yes"
    assert rows["broken-pi.jsonl"][:3] == ["pi", "1", "3"] and rows["broken-pi.jsonl"][-2] == "yes"
    assert rows["broken-pi.jsonl"][-1].startswith("1 unusable line(s) skipped")
    text = " ".join(result.output.split())
    assert (f"Lines skipped as unusable (each log's other entries imported): - {folder}/broken-pi.jsonl:4: "
            "malformed JSON: Extra data (column") in text
    assert rows["refused-pi.jsonl"][1:3] == ["0", "0"] and rows["refused-pi.jsonl"][-2] == "no"
    assert rows["refused-pi.jsonl"][-1].startswith("no conversation messages left after skipping 1 bad line(s), "
                                                   "the first at line 2: malformed JSON")
    assert rows["empty.jsonl"][-1] == "no conversations"
    assert "Not read (no reader for these types): 1 .md" in result.output
    assert "provider calls: 4" in result.output  # one session: its report follows the table


def test_logs_check_shows_the_reports_of_the_worst_sessions_or_all_with_details(tmp_path):
    source = write_logs(tmp_path / "logs.jsonl", [billed_log(s) for s in range(5)] + [compacted_log(9)])
    result = invoke("logs", "check", source, "--counter", "chars4")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "Session reports: none under 90% usable; --details prints all 6." in text
    assert "provider calls:" not in text
    every = invoke("logs", "check", source, "--counter", "chars4", "--details")
    assert every.output.count("provider calls:") == 6


def test_logs_check_on_the_real_logs_accounts_for_every_file():
    reallogs = REALLOGS
    assert reallogs.is_dir(), f"the real agent logs are missing: {reallogs}"
    result = invoke("logs", "check", reallogs)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"Agent logs in {reallogs}: what ctxlab imports from each file" in text
    files = {p.relative_to(reallogs).as_posix() for p in reallogs.rglob("*") if p.is_file()}
    rows = file_rows(result.output)
    assert len(rows) == len(set(rows)), rows  # each file once
    # every file is a row (nested subagent and compaction logs included), or counted among the types
    # no reader takes, and nothing else is
    assert set(rows) <= files, set(rows) - files
    unread = Counter(Path(name).suffix for name in files - set(rows))
    line = next(x for x in result.output.splitlines() if x.startswith("Not read"))
    assert line == "Not read (no reader for these types): " + ", ".join(
        f"{n} {suffix}" for suffix, n in sorted(unread.items())), (line, files - set(rows))
    assert {"claude_code/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-acompact-e1f845.jsonl",
            "claude_code/fa812bfe-b295-4cca-9c2f-fdf01028cb46/subagents/agent-a93ccab.jsonl"} <= set(rows)


def file_rows(output: str) -> list[str]:
    """The first column of `logs check`'s table, each cell joined back across the lines it wraps
    over (a row starts where the format column is not empty)."""
    rows: list[str] = []
    for line in output.splitlines():
        cells = line.split("│")
        if len(cells) < 4 or cells[1].strip() == "file":
            continue
        if cells[2].strip():
            rows.append(cells[1].strip())
        elif cells[1].strip():
            rows[-1] += cells[1].strip()
    return rows


# ---- ctxlab logs find and --from: sessions from the agents' default folders ----

@pytest.fixture()
def agent_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[Path]]:
    from tests.datasets.logs.locations_home import OVERRIDES, make_home

    for name in OVERRIDES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    sessions = make_home(tmp_path / "home", tmp_path / "work")
    monkeypatch.chdir(tmp_path / "work")
    return sessions


def test_logs_find_lists_each_agent_s_sessions_newest_first(agent_home):
    result = invoke("logs", "find", "--newest", "1")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    for agent, paths in agent_home.items():
        assert f"{agent}: the 1 newest of {len(paths)} sessions in" in text
        shown = [f"{p.parent.name}/{p.name}" in text for p in paths]  # the file, relative to its root
        assert shown == [True] + [False] * (len(paths) - 1), agent
    assert "1 compressed rollout(s) (.jsonl.zst) not listed" in text
    assert "The test test_add fails, please fix it." in text  # Claude Code's first user message
    assert "Fix the failing test in test_calc.py." in text  # Codex's, after the context it sends as a user message


def test_logs_find_paths_prints_sources_for_other_commands(agent_home):
    result = invoke("logs", "find", "claude_code", "codex", "--paths")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [f"claude_code:{p}" for p in agent_home["claude_code"]] + [
        f"codex:{p}" for p in agent_home["codex"]]
    bad = invoke("logs", "find", "cursor")
    assert bad.exit_code == 1 and "unknown agent 'cursor'" in bad.output and "Traceback" not in bad.output


def test_logs_find_prints_the_first_user_message_as_text(agent_home):
    path = agent_home["claude_code"][0]
    lines = path.read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if '"type": "user"' in line)
    record = json.loads(lines[first])
    record["message"]["content"] = "[bold red]not markup[/] \x1b[31mred\x1b[0m \x07 bell"
    lines[first] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")
    result = invoke("logs", "find", "claude_code")
    assert result.exit_code == 0, result.output
    assert "[bold red]not markup[/]" in result.output and "\x1b" not in result.output and "\x07" not in result.output


def test_from_reads_the_newest_sessions_of_an_agent(agent_home):
    result = invoke("logs", "check", "--from", "claude_code", "--newest", "1", "--counter", "chars4")
    assert result.exit_code == 0, result.output
    assert "Reading the 1 newest of 2 claude_code sessions" in result.stderr
    assert agent_home["claude_code"][0].name in " ".join(result.stdout.split()).replace(" ", "")
    priced = runner.invoke(app, ["cost", "--from", "pi", "--json"])
    assert priced.exit_code == 0, priced.output
    assert [s["model"] for s in json.loads(priced.stdout)] == ["claude-sonnet-4-5"]
    none = invoke("logs", "check")
    assert none.exit_code == 1 and "give the logs to read (paths), or --from AGENT" in none.output


def test_from_an_agent_without_sessions_is_one_line(agent_home, monkeypatch, tmp_path):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "empty"))
    result = invoke("logs", "check", "--from", "codex")
    assert result.exit_code == 1 and "no codex sessions in" in result.output and "Traceback" not in result.output


def test_recommend_from_an_agent_replays_its_newest_sessions(agent_home, tmp_path):
    from ctxlab import store
    from ctxlab.analysis import frames

    db = tmp_path / "r.duckdb"
    result = invoke("recommend", "--from", "codex", "--newest", "1", "--window", "3000", "--workers", "0", "--db", db,
                    "--strategy", "noop", "--strategy", "window_guard")
    assert result.exit_code == 0, result.output
    assert "Reading the 1 newest of 2 codex sessions" in result.stderr
    with store.reading(str(db)) as con:
        results = frames.results(con, store.resolve_run(con, None), mode="per-turn")
    [newest] = load_conversations(f"codex:{agent_home['codex'][0]}")
    assert set(results["conversation_id"]) == {newest.id} and set(results["label"]) == {"noop", "window_guard"}


def test_compactions_lines_up_the_agents_preset_with_the_real_claude_code_sessions():
    result = invoke("compactions", REALLOGS / "claude_code")
    assert result.exit_code == 0, result.output
    line_up = result.output.split("Where the agent's own preset compacts", 1)[1]
    rows = [line for line in line_up.splitlines() if "claude_code" in line]
    assert len(rows) == 2 and all("recorded usage" in r and "+0 /" in r for r in rows)
    assert "62 / 135 / 170,251" in line_up and "128 / 302 / 167,117" in line_up
