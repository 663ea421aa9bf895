"""The replay, runs, compare, sql and demo commands through typer's CliRunner."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import ctxlab.cli  # noqa: F401  (registers every command)
from ctxlab import store
from ctxlab.cli.app import app
from tests.replay.helpers import agent_record, write_jsonl

runner = CliRunner()


@pytest.fixture
def source(tmp_path) -> str:
    return write_jsonl(tmp_path / "in.jsonl", [agent_record(i) for i in range(3)])


def run(*args: str):
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"})
    return result


def test_replay_runs_compare_and_sql(tmp_path, source):
    db = str(tmp_path / "c.duckdb")
    a = run("replay", source, "--db", db, "--strategy", "window_guard", "--window", "700", "--workers", "0",
            "--name", "small")
    assert a.exit_code == 0, a.output
    assert "small" in a.output and "window_guard" in a.output and "fit o200k" in a.output
    longer = write_jsonl(tmp_path / "long.jsonl", [agent_record(i, rounds=6) for i in range(3)])  # deltas not 0
    b = run("replay", longer, "--db", db, "--strategy", "window_guard", "--window", "700", "--workers", "0",
            "--counter", "seed", "--counter", "o200k_base", "--reference", "o200k_base", "--reference", "cl100k_base",
            "--name", "seeded")
    assert b.exit_code == 0, b.output
    assert "chars3" in b.output and "fit cl100k" in b.output
    runs = run("runs", "--db", db)
    assert runs.exit_code == 0 and "small" in runs.output and "seeded" in runs.output
    cmp = run("compare", "small", "seeded", "--db", db)
    assert cmp.exit_code == 0, cmp.output
    assert compare_rows(cmp.output) == expected_compare(db, "small", "seeded")
    q = run("sql", "SELECT counter, count(*) AS n FROM results GROUP BY counter ORDER BY counter", "--db", db)
    assert q.exit_code == 0 and "chars3" in q.output
    bad = run("sql", "SELECT nope FROM results", "--db", db)
    assert bad.exit_code == 1 and "query failed" in bad.output and "hint" not in bad.output
    bare = run("sql", "SELECT window, count(*) FROM results GROUP BY window", "--db", db)
    assert bare.exit_code == 1 and 'write "window" or qualify it, r.window' in bare.output
    for ok in ('SELECT "window", count(*) AS n FROM results GROUP BY ALL', "SELECT r.window FROM results r"):
        assert run("sql", ok, "--db", db).exit_code == 0, ok


def compare_rows(output: str) -> dict[tuple[str, str], list[str]]:
    """The rows `ctxlab compare` printed: (strategy, counter) -> window, mode and the nine values."""
    head = next(i for i, line in enumerate(output.splitlines()) if line.split()[:2] == ["strategy", "counter"])
    assert output.splitlines()[head].split() == ["strategy", "counter", "window", "mode", "retained", "A", "retained",
                                                 "B", "delta", "fits", "A", "fits", "B", "delta", "recall", "A",
                                                 "recall", "B", "delta"]
    rows = [line.split() for line in output.splitlines()[head + 1:] if line.strip() and not set(line.strip()) <= {"─"}]
    return {(r[0], r[1]): r[2:] for r in rows}


def expected_compare(db: str, a: str, b: str) -> dict[tuple[str, str], list[str]]:
    """What `ctxlab compare` should print, computed from the `results` view in pandas: per variant of
    either run, mean retained ratio, believed fit and regex fact recall, A, B and B - A."""
    from ctxlab.analysis import frames
    from ctxlab.analysis.tables import per_unit

    with store.reading(db) as con:
        means = [per_unit(frames.results(con, store.resolve_run(con, r))).assign(fits=lambda d: d["fits"].astype(float))
                 .groupby(["label", "counter", "window", "mode"])[["retained_ratio", "fits", "fact_recall"]].mean()
                 for r in (a, b)]
    out = {}
    for key in sorted(set(means[0].index) | set(means[1].index)):
        sides = [m.loc[key] if key in m.index else None for m in means]
        cells = []
        for metric in ("retained_ratio", "fits", "fact_recall"):
            va, vb = (None if s is None else float(s[metric]) for s in sides)
            cells += [_cell(va), _cell(vb), _cell(None if va is None or vb is None else vb - va)]
        out[(key[0], key[1])] = [str(key[2]), key[3], *cells]
    return out


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def test_replay_errors_are_one_line(tmp_path, source):
    db = str(tmp_path / "e.duckdb")
    unknown = run("replay", source, "--db", db, "--strategy", "no_such_strategy", "--workers", "0")
    assert unknown.exit_code == 1 and "unknown strategy" in unknown.output and "Traceback" not in unknown.output
    bad = write_jsonl(tmp_path / "bad.jsonl", [agent_record(0), "{oops"])
    stop = run("replay", bad, "--db", db, "--strategy", "noop", "--workers", "0")
    assert stop.exit_code == 1 and "bad.jsonl" in stop.output
    skip = run("replay", bad, "--db", db, "--strategy", "noop", "--workers", "0", "--skip-invalid")
    assert skip.exit_code == 0 and "1 skip(s)" in skip.output
    missing = run("runs", "--db", str(tmp_path / "none.duckdb"))
    assert missing.exit_code == 1 and "no ctxlab database" in missing.output


def test_demo_on_a_limited_input(tmp_path, monkeypatch):
    from ctxlab.analysis.wording import lines
    from ctxlab.demo import verdicts

    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "demo.duckdb")
    result = run("demo", "--db", db, "--limit", "2", "--per-turn-limit", "2", "--tune-sessions", "1", "--tables",
                 "--workers", "0", "--report", str(tmp_path / "report.html"))
    assert result.exit_code == 0, result.output
    assert "demo-final" in result.output and "ctxlab dashboard --db" in result.output
    assert "Token estimators vs o200k_base" in result.output
    estimators = result.output[result.output.index("Token estimators vs o200k_base"):]
    assert all(name in estimators for name in ("chars4", "chars3", "chars2", "ascii_cjk", "calibrated", "MAPE"))
    with store.reading(db) as con:
        names = {n for n in store.runs(con)["name"] if not n.startswith("tune ")}
        assert names == {"demo-final", "demo-per-turn"}
        counters = {c for (c,) in con.execute("SELECT DISTINCT counter FROM results").fetchall()}
        assert {"o200k_base", "chars3", "chars4"} <= counters  # seed presets with their own counters
        turns = store.resolve_run(con, "demo-per-turn")
    # It ends with the decision, after the tables: the verdict read back from the store, then the tuner example.
    ending = result.output[result.output.index("Verdict"):]
    assert result.output.index("Verdict") > result.output.index("Token estimators")
    found = verdicts(db, turns, reference="o200k_base", price_model="claude-sonnet-4-5")
    text = " ".join(ending.split())
    assert found and all(" ".join(f"{line.key}: {line.text}".split()) in text for v in found for line in lines(v))
    assert "ctxlab tune sample:agent_sessions --policy pi --window 8000" in ending
    assert '"keepRecentTokens": ' in ending and "The full tables:" in ending
