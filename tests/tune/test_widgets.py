"""Notebook 04's tuner: sessions from a stored run (the dataset with the most calls) or a log folder,
and sliders in the agent's names that re-show the setting they make."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxlab.errors import CtxlabError
from ctxlab.tune.live import sliders
from ctxlab.tune.widgets import LOGS_WINDOW, open_tuner, panel


def test_a_run_s_stored_sessions_are_tuned_at_its_largest_window(demo_db: Path):
    tuner, window = open_tuner(str(demo_db))
    assert window == 8000 and len(tuner.sessions) == 3
    assert set(tuner.sessions.fingerprints) == {"agent_sessions"}  # the dataset whose sessions make the most calls
    chats, _ = open_tuner(str(demo_db), dataset="chats")
    assert set(chats.sessions.fingerprints) == {"chats"} and chats.sessions.calls < tuner.sessions.calls


def test_a_run_without_records_is_named(tmp_path: Path):
    from ctxlab.replay import ReplayConfig, replay

    db = tmp_path / "n.duckdb"
    replay(ReplayConfig(["sample:chats"], ["noop"], (4000,), db=str(db), workers=0, limit=1, estimators=(),
                        store_records=False))
    with pytest.raises(CtxlabError, match="stored no conversation records"):
        open_tuner(str(db))


def test_moving_a_slider_re_shows_the_setting(tmp_path: Path, capsys):
    from ctxlab.datasets import load_conversations

    logs = tmp_path / "s.jsonl"
    logs.write_text("\n".join(json.dumps(c.to_record()) for c in load_conversations("sample:agent_sessions", limit=2)),
                    encoding="utf-8")
    tuner, window = open_tuner(str(tmp_path / "absent.duckdb"), logs=str(logs))
    assert window == LOGS_WINDOW and len(tuner.sessions) == 2
    box = panel(tuner, "pi", 8000)
    controls = {c.description: c for c in box.children[:-1]}
    assert list(controls) == [k.name for k in sliders("pi", 8000)]
    first = capsys.readouterr().out
    assert "the agent's default" in first and '"keepRecentTokens": 1024' not in first
    controls["compaction.keepRecentTokens"].value = 1024
    moved = capsys.readouterr().out
    assert '"keepRecentTokens": 1024' in moved and "the agent's default" in moved and "current" in moved
