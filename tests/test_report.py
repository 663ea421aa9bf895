"""The static HTML report: self-contained, complete, and dataset text always escaped."""

from __future__ import annotations

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


def test_report_names_the_cheapest_policy_per_dataset_under_each_price_model(report: str, demo_db: Path):
    from ctxlab import store
    from ctxlab.analysis.costs import cheapest
    from ctxlab.analysis.recommend import frontier, recommend
    from ctxlab.cost import price_model

    with store.reading(demo_db) as con:
        run = store.resolve_run(con, "ui-demo")
        rows = cheapest(store.session_costs(con, run))
        results = store.results(con, run, mode="per-turn")
    assert set(rows["price_model"]) == {"claude-sonnet-4-5", "gpt-5"} and len(rows) >= 4
    section = report.split("6. What a session costs")[1]
    for row in rows.itertuples():
        assert f"<td class=\"l\">{row.price_model}</td><td class=\"l\">{row.label}</td>" in section, row
    # As the report does: the widest window's front, dollars under the first price model.
    window, model = results["window"].max(), sorted(set(rows["price_model"]))[0]
    with store.reading(demo_db) as con:
        costs = store.session_costs(con, run)
    costs = costs[(costs["window"] == window) & (costs["price_model"] == model)]
    choice = recommend(frontier(results[results["window"] == window], "o200k_base", costs,
                                price_model(model).prices.base.input))
    assert choice is not None and f"Recommended: {choice.label}" in report.split("5. Which policy")[1]
    # Without a grading in the store, the stand-in's kindness measured on the shared logs (shipped).
    assert "Summaries written offline (the stand-in): 2 recorded compactions (the shared real logs, shipped)" in \
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
