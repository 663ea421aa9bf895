"""A small demo database shared by the notebook, report and dashboard tests.

    demo_db  # the session fixture, registered in tests/conftest.py

Built once per test session through the replay API: three conversations of each bundled sample
plus an XSS probe dataset (script tags, ``onerror`` attributes, markdown links in messages, ids,
facts and the dataset name, and one invalid record that becomes a skip), every strategy, final and per-turn modes, two reference tokenizers.
Under pytest-xdist the workers share one build: the first takes a file lock and builds, the
others wait and reuse it.
"""

from __future__ import annotations

import fcntl
import json
from pathlib import Path

import pytest

XSS_SCRIPT = "<script>alert(1)</script>"
XSS_IMG = "<img src=x onerror=alert(1)>"
XSS_DATASET = "xss_<b>probe"
XSS_ID = "xss-<script>alert('id')</script>"
WINDOWS = (2000, 8000)
LIMIT = 3


def xss_record() -> dict:
    """One agent conversation whose every text field carries markup that must never execute."""
    call = {"id": "call_1", "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": f"{XSS_SCRIPT}.js"})}}
    filler = " ".join(f"step {i} of the plan keeps the context small" for i in range(120))
    return {
        "id": XSS_ID,
        "messages": [
            {"role": "system", "content": f"You are a careful assistant. {XSS_SCRIPT}"},
            {"role": "user", "content": f"Render {XSS_IMG} and {XSS_SCRIPT} please. {filler}"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": (XSS_IMG + "\n") * 300},
            {"role": "assistant", "content": f"Done: <b>bold</b> [click](javascript:alert(1)) {XSS_SCRIPT} {filler}"},
            {"role": "user", "content": f"Thanks! {XSS_IMG}"},
            {"role": "assistant", "content": f"You are welcome. {XSS_SCRIPT}"},
            {"role": "user", "content": f"One more: {XSS_SCRIPT}"},
        ],
        "meta": {"facts": [XSS_SCRIPT, "onerror=alert(1)"], "reference_summary": f"Rendered {XSS_IMG}."},
    }


PRICE_MODELS = ("claude-sonnet-4-5", "gpt-5")


def build_demo_db(folder: Path) -> Path:
    """Replay the small demo into ``folder/ui-demo.duckdb`` (in this process: quick and quiet)."""
    from ctxlab.replay import ReplayConfig, replay

    xss = folder / f"{XSS_DATASET}.jsonl"
    bad = {"id": XSS_ID, "messages": f"not a list {XSS_SCRIPT}"}  # recorded as a skip, reason and all
    xss.write_text(json.dumps(xss_record()) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    db = folder / "ui-demo.duckdb"
    replay(ReplayConfig(["sample:agent_sessions", "sample:chats", str(xss)], (), WINDOWS, counters=["o200k_base", "seed"],
           references=["o200k_base", "cl100k_base"], modes=["final", "per-turn"], db=str(db), workers=0,
           limit=LIMIT, name="ui-demo", skip_invalid=True, price_models=PRICE_MODELS))
    return db


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The path of the shared demo database (read it only: other tests use it at the same time)."""
    base = tmp_path_factory.getbasetemp()
    folder = (base if worker_id == "master" else base.parent) / "ui-demo"
    folder.mkdir(parents=True, exist_ok=True)
    done = folder / "built"
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            build_demo_db(folder)
            done.write_text("ok")
    return folder / "ui-demo.duckdb"


def build_resultless_db(folder: Path) -> Path:
    """A database whose only run skipped its only record: every face must still render."""
    from ctxlab.replay import ReplayConfig, replay

    bad = folder / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x", "messages": f"nope {XSS_SCRIPT}"}) + "\n", encoding="utf-8")
    db = folder / "resultless.duckdb"
    replay(ReplayConfig([str(bad)], ["window_guard"], [2000], db=str(db), workers=0, skip_invalid=True, name="all-bad"))
    return db
