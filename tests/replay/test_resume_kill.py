"""A replay killed with SIGKILL mid-run resumes without duplicating or losing rows."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import duckdb
import pytest

from ctxlab import store
from tests.replay.helpers import agent_record, write_jsonl

ARGS = ["--strategy", "window_guard", "--strategy", "sliding_window",
        "--window", "600", "--window", "3000", "--mode", "both", "--workers", "2", "--no-quality"]


def cli(db: str, source: str) -> list[str]:
    return [sys.executable, "-c", "from ctxlab.cli import main; main()", "replay", source, "--db", db, *ARGS]


def done_count(db: str) -> int:
    try:
        with store.reading(db, timeout=0.5) as con:
            return con.execute("SELECT count(*) FROM done").fetchall()[0][0]
    except Exception:  # not created yet, or the replay is writing right now
        return 0


@pytest.mark.slow
def test_sigkill_then_rerun_equals_an_uninterrupted_run(tmp_path):
    # Big enough that the replay runs for seconds after its first flush, so the kill lands mid-run.
    total = 500
    source = write_jsonl(tmp_path / "many.jsonl", [agent_record(i, rounds=6) for i in range(total)])
    env = {**os.environ, "CTXLAB_FLUSH_SECONDS": "0.2", "COLUMNS": "200"}
    killed = str(tmp_path / "killed.duckdb")
    proc = subprocess.Popen(cli(killed, source), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while done_count(killed) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert proc.poll() is None, "the replay finished before it could be killed; make the input bigger"
    os.killpg(proc.pid, signal.SIGKILL)  # the replay and its workers: a hard crash
    proc.wait()
    partial = done_count(killed)
    assert 0 < partial < total
    subprocess.run(cli(killed, source), env=env, check=True, capture_output=True, timeout=300)
    clean = str(tmp_path / "clean.duckdb")
    subprocess.run(cli(clean, source), env=env, check=True, capture_output=True, timeout=300)

    def counts(db: str) -> tuple:
        con = duckdb.connect(db, read_only=True)
        try:
            return con.execute("""SELECT (SELECT count(*) FROM result_rows),
                                         (SELECT count(DISTINCT (dataset, seq, unit)) FROM result_rows),
                                         (SELECT count(*) FROM result_refs), (SELECT count(*) FROM conversations),
                                         (SELECT count(*) FROM estimator_rows), (SELECT count(*) FROM done),
                                         (SELECT count(*) FROM runs)""").fetchall()[0]
        finally:
            con.close()

    resumed, uninterrupted = counts(killed), counts(clean)
    assert resumed == uninterrupted
    assert resumed[0] == resumed[1]  # no duplicate unit
    assert resumed[5] == total
