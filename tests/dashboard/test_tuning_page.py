"""The Tuning page under AppTest: a knob moved re-runs the policy over the chosen sessions and the
numbers shown are the package's; Search shows a front and a pick; a stored search is shown; the
snippet is the agent's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ctxlab.tune import Sessions
from ctxlab.tune.live import LiveTuner, sliders
from tests.dashboard.test_app import no_errors, open_app


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_moving_a_knob_re_runs_the_policy_and_shows_the_packages_numbers(demo_db: Path, monkeypatch):
    at = open_app(monkeypatch, demo_db, "tuning")
    no_errors(at)
    assert at.selectbox(key="tune_policy").value == "pi"
    window = int(at.number_input(key="tune_window").value)
    before = metric(at, "needed-context recall"), metric(at, "tokens + refetch / session")
    knob = at.slider(key=f"knob-pi-{window}-compaction.keepRecentTokens")
    knob.set_value(int(knob.min)).run()
    no_errors(at)
    after = metric(at, "needed-context recall"), metric(at, "tokens + refetch / session")
    assert after != before, "moving a knob must change the numbers shown"
    # The page's numbers are the live tuner's for that setting, over the run's stored sessions.
    dataset = at.selectbox(key="tune_dataset").value
    from ctxlab import store

    with store.reading(demo_db) as con:
        conversations = store.stored_conversations(con, store.resolve_run(con, None), dataset)
    point = LiveTuner(Sessions.of(dataset, conversations, "x")).point(
        "pi", window, {"compaction.keepRecentTokens": int(knob.min)})
    assert after[0] == f"{point.scored.row['needed_recall']:.1%}"
    assert after[1] == f"{point.scored.row['effective_tokens']:,.0f}"
    shown = at.dataframe[0].value
    assert list(shown["setting"]) == ["the agent's default", "current"]
    # pi's default keeps 20,000 recent tokens: at an 8k window it cannot compact, and the page says so.
    rejected = shown["rejected_rate"].iloc[0]
    assert window == 8000 and rejected > 0
    assert any(w.value.startswith(f"The agent's default has {rejected:.1%} of its calls rejected") for w in at.warning)
    snippet = json.loads(at.code[0].value)
    assert snippet["compaction"]["keepRecentTokens"] == int(knob.min)


def test_search_shows_the_front_and_the_pick(demo_db: Path, monkeypatch):
    at = open_app(monkeypatch, demo_db, "tuning")
    at.selectbox(key="tune_policy").set_value("codex").run()
    at.button(key="tune_search").click().run()
    no_errors(at)
    assert at.success and "Search pick: #" in at.success[0].value
    searched = at.dataframe[1].value
    assert searched["on_front"].any() and len(searched) == 6  # the default and a grid of five


def test_dollars_and_the_run_s_price_models(demo_db: Path, monkeypatch):
    at = open_app(monkeypatch, demo_db, "tuning")
    cost = at.selectbox(key="tune_cost")
    assert cost.options[0] == "tokens sent + refetch" and "$ with claude-sonnet-4-5" in cost.options
    cost.set_value("claude-sonnet-4-5").run()
    no_errors(at)
    assert metric(at, "$ / session + refetch").startswith("$")


def test_a_stored_search_is_drawn_for_the_same_sessions(tmp_path: Path, monkeypatch):
    from ctxlab.replay import ReplayConfig, replay
    from ctxlab.tune import tune

    db = tmp_path / "s.duckdb"
    replay(ReplayConfig(["sample:agent_sessions"], ["noop"], (4000,), db=str(db), workers=0, limit=2,
                        modes=("per-turn",), estimators=(), name="two"))
    outcome = tune(Sessions.load(["sample:agent_sessions"], limit=2), "codex", window=4000, db=str(db))
    at = open_app(monkeypatch, db, "tuning")
    at.selectbox(key="tune_policy").set_value("codex").run()
    at.number_input(key="tune_window").set_value(4000).run()
    no_errors(at)
    assert len(at.dataframe) == 2, "the stored search's settings are listed"
    assert len(at.dataframe[1].value) == len(outcome.result.evaluations)


def test_a_log_folder_is_tuned_and_a_forbidden_setting_is_named(tmp_path: Path, monkeypatch):
    from ctxlab.datasets import load_conversations

    folder = tmp_path / "logs"
    folder.mkdir()
    records = [c.to_record() for c in load_conversations("sample:agent_sessions", limit=2)]
    (folder / "s.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    monkeypatch.setenv("CTXLAB_TUNE_LOGS", str(folder))
    db = tmp_path / "d.duckdb"
    from ctxlab.replay import ReplayConfig, replay

    replay(ReplayConfig(["sample:chats"], ["noop"], (4000,), db=str(db), workers=0, limit=1, estimators=()))
    at = open_app(monkeypatch, db, "tuning")
    at.radio(key="tune_source").set_value("a log folder").run()
    no_errors(at)
    assert "2 session(s)" in at.caption[0].value
    at.selectbox(key="tune_policy").set_value("openhands").run()
    window = int(at.number_input(key="tune_window").value)
    names = [s.name for s in sliders("openhands", window)]
    assert sorted(s.label for s in at.slider) == sorted(names)  # the agent's own names
    at.slider(key=f"knob-openhands-{window}-max_size").set_value(20).run()
    at.slider(key=f"knob-openhands-{window}-keep_first").set_value(10).run()
    assert not at.exception
    assert any("keep_first" in w.value for w in at.warning), "a setting OpenHands forbids is named, not replayed"


@pytest.mark.parametrize("name", ["xss"])
def test_dataset_names_stay_text(name: str, demo_db: Path, monkeypatch):
    at = open_app(monkeypatch, demo_db, "tuning")
    datasets = at.selectbox(key="tune_dataset").options
    xss = next(d for d in datasets if name in d)
    at.selectbox(key="tune_dataset").set_value(xss).run()
    no_errors(at)
    rendered = " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.success])
    assert "<b>" not in rendered and "<script>" not in rendered


def test_a_preset_that_cannot_be_tuned_at_the_window_says_why(demo_db: Path, monkeypatch):
    at = open_app(monkeypatch, demo_db, "tuning")
    at.selectbox(key="tune_policy").set_value("anthropic_compaction").run()
    at.number_input(key="tune_window").set_value(8000).run()
    assert not at.exception and not at.slider
    assert any("50,000" in w.value and "cannot be tuned" in w.value for w in at.warning)
    at.selectbox(key="tune_policy").set_value("anthropic_context_editing").run()
    at.number_input(key="tune_window").set_value(4000).run()
    no_errors(at)
    assert sorted(s.label for s in at.slider) == ["keep", "trigger"]
    assert any("clear\\_at\\_least stays at the agent's value" in c.value for c in at.caption)
