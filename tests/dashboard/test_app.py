"""The Streamlit dashboard under AppTest: every page renders, widgets change what is shown, and
dataset text is never rendered as HTML."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ctxlab import store
from tests.ui_fixtures import XSS_IMG, XSS_SCRIPT, build_resultless_db

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboard" / "app.py"
PAGES = ("runs", "comparison", "estimators", "summaries", "tuning", "explorer", "policies", "costs")
TIMEOUT = 60


def open_app(monkeypatch: pytest.MonkeyPatch, db: Path, page: str | None = None) -> AppTest:
    monkeypatch.setenv("CTXLAB_DB", str(db))
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    if page and page != "runs":
        at.switch_page(f"views/{page}.py").run()
    return at


def no_errors(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders(page: str, demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, demo_db, page)
    no_errors(at)
    assert at.title[0].value
    if page != "runs":
        assert at.dataframe, "each page shows its table"
    if page in ("comparison", "estimators", "summaries", "tuning", "policies", "costs"):
        assert len(at.image) >= 1, "each analysis page shows a figure"
        labels = [b.label for b in at.get("download_button")]
        assert "Download table (CSV)" in labels and "Download figure (PNG)" in labels


def test_missing_and_empty_databases_say_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, tmp_path / "missing.duckdb", "comparison")
    assert not at.exception
    assert "No ctxlab database" in at.warning[0].value and "ctxlab demo" in at.warning[0].value
    empty = tmp_path / "empty.duckdb"
    store.connect(empty).close()  # migrated, no runs
    at = open_app(monkeypatch, empty)
    assert not at.exception
    assert "no runs yet" in at.warning[0].value


@pytest.mark.parametrize("page", PAGES)
def test_pages_render_a_run_without_results(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, build_resultless_db(tmp_path), page)
    no_errors(at)


def table_values(at: AppTest) -> list:
    return at.dataframe[0].value.to_dict("records")


def test_window_slider_changes_the_comparison_table(demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, demo_db, "comparison")
    slider = at.select_slider(key="window")
    first = table_values(at)
    assert {row["window"] for row in first} == {slider.value}
    other = 2000 if slider.value != 2000 else 8000
    slider.set_value(other).run()
    no_errors(at)
    second = table_values(at)
    assert {row["window"] for row in second} == {other}
    assert [r["retained_ratio"] for r in first] != [r["retained_ratio"] for r in second]


def test_strategy_filter_and_figure_choice(demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, demo_db, "comparison")
    at.multiselect(key="strategies").set_value(["window_guard"]).run()
    assert {row["label"] for row in table_values(at)} == {"window_guard"}
    for choice in ("Real overflow", "Tool integrity", "Fact recall vs tokens"):
        at.radio(key="figure").set_value(choice).run()
        no_errors(at)


def choose(at: AppTest, key: str, text: str) -> AppTest:
    """Pick the first option whose label contains `text` (the explorer's options are positions)."""
    box = at.selectbox(key=key)
    return box.set_value(next(i for i, label in enumerate(box.options) if text in label)).run()


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_explorer_window_changes_what_is_kept(demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, demo_db, "explorer")
    choose(at, "variant", "sliding_window [o200k_base]")
    at.slider(key="explorer_window").set_value(1000).run()
    tight = metrics(at)
    at.slider(key="explorer_window").set_value(at.slider(key="explorer_window").max).run()
    loose = metrics(at)
    no_errors(at)
    assert int(tight["dropped"]) > int(loose["dropped"])
    assert int(tight["tokens"].replace(",", "")) < int(loose["tokens"].replace(",", ""))
    assert loose["fits"] == "yes"


def test_explorer_parameters_rerun_the_strategy(demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, demo_db, "explorer")
    choose(at, "variant", "sliding_window")
    at.slider(key="explorer_window").set_value(at.slider(key="explorer_window").max).run()
    before = metrics(at)["tokens"]
    cap = next(n for n in at.number_input if n.label == "max_chars_per_message")
    cap.set_value(200).run()
    no_errors(at)
    assert metrics(at)["tokens"] != before
    assert "reproduced exactly" not in " ".join(c.value for c in at.caption)


def test_explorer_shows_markup_as_text(demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, demo_db, "explorer")
    choose(at, "conversation", "xss")
    at.multiselect(key="explorer_fates").set_value(["kept", "truncated", "dropped", "summary", "marker"]).run()
    no_errors(at)
    texts = " ".join(t.value for t in at.text)
    assert XSS_SCRIPT in texts and XSS_IMG in texts  # shown verbatim, as text
    assert not at.get("html")
    for element in (*at.markdown, *at.caption):
        assert not element.proto.allow_html
        assert "<script" not in element.value and "<img" not in element.value


def test_dashboard_never_renders_html_and_the_engine_never_imports_streamlit():
    for path in (ROOT / "dashboard").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert "unsafe_allow_html" not in source and "st.html" not in source and "components" not in source, path
    for path in (ROOT / "ctxlab").rglob("*.py"):
        assert not re.search(r"^\s*(import|from)\s+streamlit", path.read_text(encoding="utf-8"), re.M), path


def test_run_choice_follows_across_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from ctxlab.replay import ReplayConfig, replay

    db = tmp_path / "two-runs.duckdb"
    ids = {}
    for name, windows in (("older", [2000]), ("newer", [4000])):
        ids[name] = replay(ReplayConfig(["sample:chats"], ["window_guard"], windows, db=str(db), workers=0, limit=1, name=name,
                           estimators=(), quality=False)).run_id
    at = open_app(monkeypatch, db)
    assert at.selectbox(key="run").value == ids["newer"]  # newest by default
    at.selectbox(key="run").set_value(ids["older"]).run()
    at.switch_page("views/comparison.py").run()
    no_errors(at)
    assert at.selectbox(key="run").value == ids["older"]
    assert {row["window"] for row in table_values(at)} == {2000}


def test_cli_dashboard_starts_streamlit_headless_on_localhost(demo_db: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch):
    from typer.testing import CliRunner

    from ctxlab.cli import app
    from ctxlab.cli import report as cli_report

    calls = []
    monkeypatch.setattr(cli_report.subprocess, "call", lambda cmd, env: calls.append((cmd, env)) or 0)
    result = CliRunner().invoke(app, ["dashboard", "--db", str(demo_db), "--port", "8611"])
    assert result.exit_code == 0, result.output
    cmd, env = calls[0]
    assert cmd[1:4] == ["-m", "streamlit", "run"] and cmd[4] == str(APP)
    flags = dict(zip(cmd[5::2], cmd[6::2], strict=False))
    assert flags == {"--server.headless": "true", "--server.address": "127.0.0.1", "--server.port": "8611",
                     "--browser.gatherUsageStats": "false"}
    assert env["CTXLAB_DB"] == str(demo_db.resolve())
    missing = CliRunner().invoke(app, ["dashboard", "--db", str(tmp_path / "nope.duckdb")])
    assert missing.exit_code == 1 and "no ctxlab database" in missing.output and len(calls) == 1


def test_policy_page_shows_the_front_and_the_verdict(demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    from ctxlab.analysis import frames
    from ctxlab.analysis.recommend import policies
    from ctxlab.analysis.wording import heading, lines

    at = open_app(monkeypatch, demo_db, "policies")
    no_errors(at)
    window = at.select_slider(key="policy_window").value
    with store.reading(demo_db) as con:
        results = frames.results(con, store.resolve_run(con, None))
    expected = policies(results[results["window"] == window], "o200k_base").verdict
    shown_verdict = at.success[0].value.replace("\\", "")
    assert expected is not None and heading(expected) in shown_verdict  # the words every face uses
    assert all(f"**{line.key}**: {line.text}" in shown_verdict for line in lines(expected))
    shown = at.dataframe[0].value
    assert set(shown["label"]) == set(results[results["mode"] == "per-turn"]["label"])
    assert list(shown.columns[2:5]) == ["needed_recall", "needed_low", "needed_high"]  # the grounded measure first
    assert "regex_fact_recall" in shown and shown["needed_recall"].is_monotonic_decreasing
    # the stand-in gap rides in the verdict, in the words every face uses
    assert "**stand-in gap**: summaries written offline: 2 recorded compactions" in shown_verdict
    smallest = min(at.select_slider(key="policy_window").options, key=int)
    at.select_slider(key="policy_window").set_value(int(smallest)).run()
    no_errors(at)
    assert (at.dataframe[0].value["window"] == int(smallest)).all()


def test_policy_front_by_dollars_uses_the_cost_front(demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, demo_db, "policies")
    axis = at.radio(key="policy_axis")
    assert axis.options == ["tokens sent + refetch", "$ with claude-sonnet-4-5", "$ with gpt-5"]
    axis.set_value("$ with gpt-5").run()
    no_errors(at)
    shown = at.dataframe[0].value
    assert shown["cost_usd"].notna().all() and shown["on_cost_front"].any()
    assert (shown["effective_usd"] >= shown["cost_usd"]).all() and (shown["refetch_usd"] >= 0).all()


def test_session_cost_page_shows_cheapest_policy_and_one_session(demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, demo_db, "costs")
    no_errors(at)
    table = at.dataframe[0].value
    assert at.metric[0].value == f"${table['cost_usd'].min():,.4f}"
    assert (table["cache_read_tokens"] + table["cache_write_tokens"] > 0).all()
    at.selectbox(key="cost_model").set_value("gpt-5").run()
    no_errors(at)
    assert (at.dataframe[0].value["cache_write_tokens"] == 0).all()  # OpenAI bills no cache writes
    sessions = at.selectbox(key="cost_session").options
    at.selectbox(key="cost_session").select_index(len(sessions) - 1).run()
    no_errors(at)
    assert len(at.image) == 1
