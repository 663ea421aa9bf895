"""The static HTML report: self-contained, complete, and dataset text always escaped."""

from __future__ import annotations

import dataclasses
import html
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ctxlab.errors import CtxlabError
from ctxlab.report import write_report
from tests.ui_fixtures import XSS_DATASET, XSS_ID, XSS_IMG, build_resultless_db


class Tags(HTMLParser):
    """Every start tag and its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


@pytest.fixture(scope="module")
def report(demo_db: Path, tmp_path_factory: pytest.TempPathFactory) -> str:  # noqa: F811
    out = write_report(demo_db, tmp_path_factory.mktemp("report") / "report.html")
    return out.read_text(encoding="utf-8")


def test_report_is_self_contained(report: str):
    parser = Tags()
    parser.feed(report)
    names = {tag for tag, _ in parser.tags}
    assert not names & {"script", "iframe", "object", "embed", "link", "base", "form", "svg"}
    for tag, attrs in parser.tags:
        assert not [a for a in attrs if a.startswith("on")], (tag, attrs)
        if "src" in attrs:
            assert tag == "img" and attrs["src"].startswith("data:image/png;base64,"), (tag, attrs)
        if "href" in attrs:
            assert attrs["href"].startswith("#"), (tag, attrs)
    assert "http://" not in report.split("<main>")[0] and "https://" not in report.split("<main>")[0]


def test_report_escapes_dataset_text(report: str):
    assert "<script" not in report.lower()
    assert XSS_IMG not in report and "<b>bold</b>" not in report
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in report
    assert "&lt;img src=x onerror=alert(1)&gt;" in report
    # The dataset name and the conversation id carry markup too.
    assert "xss_&lt;b&gt;probe" in report and XSS_DATASET not in report
    assert "xss-&lt;script&gt;alert(&#x27;id&#x27;)&lt;/script&gt;" in report and XSS_ID not in report


def test_report_has_every_section(report: str):
    for heading in ("Run spec", "Headline", "1. Strategy comparison", "2. Estimator error",
                    "3. Summary quality, drift and cost", "4. Window tuning", "5. Which policy",
                    "6. What a session costs, with prompt caching", "Skipped inputs", "Example conversations"):
        assert f">{heading}</h3>" in report, heading
    # It opens with the verdict; the run spec is collapsed, its strategies in short form.
    assert report.index('<h2 id="verdict">Verdict</h2>') < report.index("<h2 id=\"run-")
    spec = report.split(">Run spec</h3>")[1].split("</details>")[0].strip()
    assert spec.startswith("<details><summary>Run spec: ") and "<td class=\"l\">pi</td>" in spec
    assert "trigger_reserve=" not in spec.split("Full specs")[0]  # pi at its defaults: its name alone


def test_the_verdict_opens_the_report_per_dataset_and_window(report: str, demo_db: Path):
    from ctxlab import store
    from ctxlab.analysis import frames
    from ctxlab.analysis.verdicts import run_policies
    from ctxlab.analysis.wording import lines

    with store.reading(demo_db) as con:
        run = store.resolve_run(con, "ui-demo")
        found = run_policies(frames.results(con, run), store.session_costs(con, run))
    opening = html.unescape(report.split('<h2 id="verdict">')[1].split('<h2 id="runs">')[0])
    assert found is not None and found.model == "claude-sonnet-4-5" and len(found.verdicts) >= 3
    for v in found.verdicts:  # what to run, ties by the one rule, cost: the lines every face prints
        assert f"{v.dataset}, {v.window:,}-token window" in opening
        assert all(line.text in opening for line in lines(v)) and v.evidence in opening
    assert "no policy needed" in opening  # the fixture's chats fit its windows
    # the stand-in gap measured on the shared logs (shipped) and the headroom ride in their slots
    assert "stand-in gap" in opening and "summaries written offline: 2 recorded compactions" in opening
    squeezed = [v for v in found.verdicts if v.needs_compression]
    assert squeezed and all(v.headroom is not None for v in squeezed)
    assert all(f"hindsight limit at {v.run.name}'s tokens" in opening for v in squeezed)
    assert opening.count("Hindsight limit: the most of the next call's needed strings") == 1  # said once
    section = html.unescape(report.split("5. Which policy")[1])
    assert all(v.evidence in section for v in found.verdicts)


def test_a_verdicts_findings_render_only_when_present():
    from ctxlab.analysis.verdict import Choice, Finding, Verdict
    from ctxlab.report.verdicts import card

    pick = Choice("a", "a", "o200k_base", 0.9, 0.85, 0.95, 1.25, ())
    v = Verdict("d<b>", 8000, 10, 100, 3, 3, 0.0, "effective_usd", 9000.0, pick, pick, pick, "why <script>")
    plain = card(v)
    assert "Stand-in gap" not in plain and "Headroom" not in plain and "d&lt;b&gt;" in plain
    assert "why &lt;script&gt;" in plain and "<script>" not in plain
    full = card(dataclasses.replace(v, stand_in_gap=Finding("ctxlab's summary kept 12 points more", "on 2 <i>"),
                                    headroom=Finding("hindsight keeps 99%")))
    assert full.index("stand-in gap") < full.index("headroom") and "12 points more" in full
    assert "on 2 &lt;i&gt;" in full and full.count("<details>") == plain.count("<details>") + 1  # detail collapsed


def test_a_much_kinder_stand_in_warns_beside_the_verdict_naming_the_summarizing_policies():
    import pandas as pd

    from ctxlab.analysis.recommend import Policies
    from ctxlab.analysis.standin import StandinGap
    from ctxlab.analysis.verdict import Choice, Verdict
    from ctxlab.analysis.verdicts import with_standin
    from ctxlab.analysis.wording import lines
    from ctxlab.report.verdicts import card

    pick = Choice("claude_code", "claude_code", "o200k_base", 0.9, 0.85, 0.95, 1.0, ())
    v = Verdict("d", 8000, 3, 30, 2, 2, 0.0, "effective_tokens", 9000.0, pick, pick, pick, "why")
    front = pd.DataFrame({"label": ["claude_code", "sliding_window", "claude_code"]})
    kind = StandinGap("test", 3, 0.8, 0.2, 0.6, 0.5, 0.7, 900.0, 1000.0)
    found = with_standin(Policies(front, pd.DataFrame(), v), kind).verdict
    assert found is not None and found.stand_in_gap is not None and found.stand_in_gap.warn
    assert found.stand_in_gap.detail == ("Needed recall of the summarizing policies (claude_code) is overstated by "
                                         "about 60 points; the policy to run is one of them: check with a real model "
                                         "(docs/quality.md).")
    assert ("stand-in gap", f"summaries written offline: {kind.line()}") in [tuple(line) for line in lines(found)]
    assert f'<p class="warn">{html.escape(found.stand_in_gap.detail)}</p>' in card(found)  # shown, not collapsed
    mild = with_standin(Policies(front, pd.DataFrame(), v), kind._replace(standin_recall=0.25, gap=0.05)).verdict
    assert mild is not None and mild.stand_in_gap is not None
    assert not mild.stand_in_gap.warn and mild.stand_in_gap.detail == ""  # within the tolerance: the line alone
    assert with_standin(Policies(front, pd.DataFrame(), v), None).verdict is v
    # no summary is written where nothing needs compressing, nor by policies that never summarize
    fits = dataclasses.replace(v, peak_tokens=7000.0)
    assert with_standin(Policies(front, pd.DataFrame(), fits), kind).verdict is fits
    plain = pd.DataFrame({"label": ["sliding_window", "noop"]})
    assert with_standin(Policies(plain, pd.DataFrame(), v), kind).verdict is v


def test_the_headline_grades_by_needed_recall(report: str):
    headline = report.split(">Headline</h3>")[1].split("<h3>")[0]
    per_turn = headline.split("mode per-turn")[1]
    assert "needed recall [95% CI]" in per_turn and "regex fact recall" in per_turn
    assert per_turn.index("needed recall [95% CI]") < per_turn.index("retained [95% CI]")  # the quality column first
    final = headline.split("mode final")[1].split("mode per-turn")[0]
    assert "no needed recall" in final and "needed recall [95% CI]" not in final


def test_short_specs_name_only_what_differs_from_the_defaults():
    import json

    from ctxlab.report.run_spec import short_spec
    from ctxlab.strategies import get_strategy

    spec = get_strategy("codex", trigger_tokens=3584, trigger="tokens").spec
    stored = json.dumps({"name": spec.name, "params": dict(spec.params)}, default=str)
    assert short_spec(stored) == 'codex(trigger="tokens", trigger_tokens=3584)'
    assert short_spec(json.dumps({"name": "codex", "params": dict(get_strategy("codex").spec.params)})) == "codex"
    assert short_spec(json.dumps({"name": "gone", "params": {"a": 1}})) == "gone(a=1)"  # no longer builds: all


def test_report_leaves_out_tuner_runs(tmp_path: Path):
    """`ctxlab tune` stores a run per setting; reporting every run leaves them out and says so."""
    import shutil

    from ctxlab import store
    from ctxlab.tune import Sessions
    from ctxlab.tune.run import tune

    (tmp_path / "base").mkdir()
    db = tmp_path / "t.duckdb"
    shutil.copy(build_resultless_db(tmp_path / "base"), db)
    tune(Sessions.load(["sample:agent_sessions"], limit=1), "codex", window=8000, db=str(db))
    with store.reading(db) as con:
        tuned = sum(name.startswith("tune ") for name in store.runs(con)["name"])
    text = write_report(db, tmp_path / "r.html").read_text(encoding="utf-8")
    assert tuned == 6 and f"1 run(s); {tuned} run(s) ctxlab tune stored" in text and "Run tune " not in text
    assert "Run all-bad" in text


def test_report_names_the_cheapest_policy_per_dataset_under_each_price_model(report: str, demo_db: Path):
    from ctxlab import store
    from ctxlab.analysis.costs import cheapest

    with store.reading(demo_db) as con:
        run = store.resolve_run(con, "ui-demo")
        rows = cheapest(store.session_costs(con, run))
    assert set(rows["price_model"]) == {"claude-sonnet-4-5", "gpt-5"} and len(rows) >= 4
    section = report.split("6. What a session costs")[1]
    for row in rows.itertuples():
        assert f"<td class=\"l\">{row.price_model}</td><td class=\"l\">{row.label}</td>" in section, row
    # Without a grading in the store, the stand-in's kindness measured on the shared logs (shipped).
    assert "stand-in gap: summaries written offline: 2 recorded compactions (the shared real logs, shipped)" in \
        report.split("5. Which policy")[1]
    assert report.count('<img class="fig"') >= 12
    for fate in ("kept", "dropped"):
        assert f'class="fate {fate}"' in report
    assert "fingerprint" in report and "tiktoken" in report  # dataset fingerprints and versions
    assert "xss_&lt;b&gt;probe.jsonl:2" in report and "is not a list" in report  # the skipped record


def test_report_for_one_run_into_a_folder(demo_db: Path, tmp_path: Path):  # noqa: F811
    out = write_report(demo_db, tmp_path, run_id="ui-demo")
    assert out == tmp_path / "report.html"
    assert "Run ui-demo" in out.read_text(encoding="utf-8")


def test_report_errors_are_clear(demo_db: Path, tmp_path: Path):  # noqa: F811
    with pytest.raises(CtxlabError, match="no ctxlab database"):
        write_report(tmp_path / "missing.duckdb", tmp_path / "r.html")
    with pytest.raises(CtxlabError, match="no run"):
        write_report(demo_db, tmp_path / "r.html", run_id="no-such-run")


def test_cli_report_without_notebooks(demo_db: Path, tmp_path: Path):  # noqa: F811
    from typer.testing import CliRunner

    from ctxlab.cli import app

    result = CliRunner().invoke(app, ["report", "--db", str(demo_db), "--out", str(tmp_path), "--no-notebooks"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "report.html").exists()
    missing = CliRunner().invoke(app, ["report", "--db", str(tmp_path / "nope.duckdb"), "--out", str(tmp_path)])
    assert missing.exit_code == 1 and "no ctxlab database" in missing.output


def test_report_of_a_run_without_results(tmp_path: Path):
    html = write_report(build_resultless_db(tmp_path), tmp_path / "r.html").read_text(encoding="utf-8")
    assert "This run has no results yet." in html and "bad.jsonl:1" in html


def test_report_puts_provider_references_beside_tokenizers(logs_db: Path, tmp_path: Path):  # noqa: F811
    import html as markup

    from ctxlab.analysis.logs import PROVIDER_NOTE

    html = write_report(logs_db, tmp_path / "logs.html").read_text(encoding="utf-8")
    assert markup.escape(PROVIDER_NOTE.replace("`", ""), quote=True) in html
    assert 'alt="error by reference"' in html and "provider:claude-sonnet-4-5" in html


def test_report_without_logs_has_no_provider_section(report: str):
    assert 'alt="error by reference"' not in report
