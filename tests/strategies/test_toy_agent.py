"""One place per agent (issue 30, item 2): a toy agent declared in a single file (its policy, its
source, its knobs with their ranges and defaults, its snippet form) shows up in
``ctxlab strategies --details``, ``ctxlab tune``, ``ctxlab recommend`` and the generated docs, with
nothing else touched."""

from __future__ import annotations

import importlib
import shutil
import sys
from pathlib import Path

import pytest
from cogapp import Cog
from typer.testing import CliRunner

from ctxlab.cli import app
from ctxlab.errors import CtxlabError
from ctxlab.strategies import STRATEGIES, get_strategy, strategy_params

DOCS = Path(__file__).resolve().parents[2] / "docs"
TOY = '''
from ctxlab.strategies.policy import Form, Knob, Policy, Source, Span, W, preset
from ctxlab.strategies.policy.conversions import param, reserve

TOY = preset("toy_agent", Policy, {"head": "system", "tail": "recent_tokens", "snap": "valid_cut", "middle": "drop"},
             Source("example/toy-agent", "src/compact.ts", "0123abcd"),
             "Toy agent: over window - reserveTokens, keep the newest keepTokens from a valid cut",
             agent="Toy Agent", knobs=(
                 Knob("reserveTokens", "int", "tokens", default=1500, sets=reserve(), allowed=Span(0, None),
                      searched=Span(W(0.05), W(0.5)), step=256, where="src/config.ts"),
                 Knob("keepTokens", "int", "tokens", default=1200, sets=param("keep_tokens"), allowed=Span(0, None),
                      searched=Span(W(0.05), W(0.5)), step=256, where="src/config.ts"),
             ), forms=(
                 Form("json", "~/.toy/settings.json",
                      {"reserveTokens": ("compaction", "reserve"), "keepTokens": ("compaction", "keep")},
                      "docs/settings.md"),
             ))
'''


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "toy_agent_module.py").write_text(TOY, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("toy_agent_module")
    STRATEGIES.unregister("toy_agent")
    sys.modules.pop("toy_agent_module", None)


def invoke(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output


def test_the_knobs_defaults_are_the_presets_fields(toy):
    params = strategy_params("toy_agent")
    assert (params["trigger"], params["trigger_reserve"], params["keep_tokens"]) == ("reserve", 1500, 1200)
    assert get_strategy("toy_agent", keep_tokens=800).keep_tokens == 800


def test_strategies_details_shows_its_source_and_knobs(toy):
    out = invoke("strategies", "--details")
    assert "toy_agent" in out and "example/toy-agent src/compact.ts @ 0123abcd" in out
    assert "knobs (Toy Agent): reserveTokens=1500, keepTokens=1200" in out


def test_tune_searches_it_and_writes_its_snippet(toy, tmp_path: Path):
    out = invoke("tune", "sample:agent_sessions", "--limit", "2", "--policy", "toy_agent", "--window", "4000",
                 "--knob", "keepTokens", "--db", str(tmp_path / "t.duckdb"))
    assert "Tuning toy_agent at a 4,000-token window" in out
    assert "~/.toy/settings.json" in out and '"keep":' in out and "example/toy-agent docs/settings.md @ 0123abcd" in out


def test_recommend_replays_it(toy, tmp_path: Path):
    out = invoke("recommend", "sample:agent_sessions", "--window", "4000", "--limit", "2", "--workers", "0",
                 "--strategy", "toy_agent", "--strategy", "noop", "--db", str(tmp_path / "r.duckdb"))
    run = " ".join(out.split("run:", 1)[1].split())  # the verdict's run line (noop is never a choice)
    assert run.startswith("toy_agent:"), out


def test_the_generated_docs_list_it(toy, tmp_path: Path):
    for page, expected in (("strategies.md", "| `toy_agent` | Toy agent: over window - reserveTokens"),
                           ("tuning.md", "| `toy_agent` | Toy Agent | `reserveTokens`, `keepTokens` |")):
        copy = tmp_path / page
        shutil.copy(DOCS / page, copy)
        Cog().callable_main(["cog", "-r", str(copy)])  # what `make docs` runs, in this process
        text = copy.read_text(encoding="utf-8")
        assert expected in text and expected not in (DOCS / page).read_text(encoding="utf-8")


def test_a_default_written_twice_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "toy_twice.py").write_text(TOY.replace('"toy_agent"', '"toy_twice"').replace(
        '"middle": "drop"}', '"middle": "drop", "keep_tokens": 900}'), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(CtxlabError, match="keep_tokens written twice"):
        importlib.import_module("toy_twice")
    assert "toy_twice" not in STRATEGIES
