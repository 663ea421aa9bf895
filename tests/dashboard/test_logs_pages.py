"""Dashboard pages on a replay of agent logs: provider references beside the tokenizers on the
estimator page, recorded compactions on the summary page."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxlab.analysis.logs import COMPACTION_NOTE, PROVIDER_NOTE
from tests.dashboard.test_app import no_errors, open_app
from tests.provider_logs import MODEL


def test_estimator_page_offers_the_provider_as_a_reference(logs_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, logs_db, "estimators")
    no_errors(at)
    box = at.selectbox(key="est_reference")
    assert box.options == ["o200k_base", f"provider:{MODEL}"] and box.value == "o200k_base"
    assert PROVIDER_NOTE in [i.value for i in at.info]
    at.radio(key="est_figure").set_value("Every reference side by side").run()
    no_errors(at)
    assert {r["reference"] for r in at.dataframe[0].value.to_dict("records")} == {"o200k_base", f"provider:{MODEL}"}
    box.set_value(f"provider:{MODEL}").run()
    at.radio(key="est_figure").set_value("Mean signed error (heatmap)").run()
    no_errors(at)
    assert at.image, "the provider-referenced heatmap is drawn"
    assert {r["counter"] for r in at.dataframe[0].value.to_dict("records")} >= {"chars4", "calibrated", "o200k_base"}


def test_summary_page_shows_recorded_compactions(logs_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, logs_db, "summaries")
    no_errors(at)
    assert "Recorded compactions: the agent's summary beside ctxlab's" in [h.value for h in at.subheader]
    assert COMPACTION_NOTE in [c.value for c in at.caption]
    tables = [d.value for d in at.dataframe]
    summary = next(t for t in tables if "best_recall_share" in t.columns)
    assert list(summary["strategy"]) == ["agent", "compaction", "sliding_window"]
    assert any("agent recall" in t.columns for t in tables)


def test_pages_without_logs_show_neither(demo_db: Path, monkeypatch: pytest.MonkeyPatch):
    at = open_app(monkeypatch, demo_db, "estimators")
    assert PROVIDER_NOTE not in [i.value for i in at.info]
    at = open_app(monkeypatch, demo_db, "summaries")
    assert not any("Recorded compactions" in h.value for h in at.subheader)
