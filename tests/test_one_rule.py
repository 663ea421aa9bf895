"""One rule for a tie: `ctxlab recommend` and `ctxlab tune`, run on the same sessions and the same
variants, name the same pick and the same ties."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import ctxlab.cli  # noqa: F401  (registers every command)
from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.analysis.recommend import policies
from ctxlab.analysis.wording import lines
from ctxlab.cli.app import app
from ctxlab.tune import Sessions, spec_text
from ctxlab.tune.run import tune

SOURCE, SESSIONS, WINDOW, POLICY = "sample:agent_sessions", 8, 8000, "codex"


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """The tuner's search over codex's knob, and `ctxlab recommend` over the settings it evaluated."""
    db = str(tmp_path_factory.mktemp("rule") / "rule.duckdb")
    outcome = tune(Sessions.load([SOURCE], limit=SESSIONS), POLICY, window=WINDOW, db=None)
    specs = [spec_text(e.setting.preset, e.setting.params) for e in outcome.result.evaluations]
    args = ["recommend", SOURCE, "--window", str(WINDOW), "--limit", str(SESSIONS), "--db", db, "--workers", "0",
            *(a for spec in specs for a in ("--strategy", spec))]
    printed = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert printed.exit_code == 0, printed.output
    with store.reading(db) as con:
        results = frames.results(con, store.resolve_run(con, f"recommend-{WINDOW}"), mode="per-turn")
    return outcome.result, specs, policies(results, "o200k_base"), printed.output


def test_recommend_and_tune_name_the_same_pick_and_the_same_ties(both):
    result, specs, found, printed = both
    assert result.pick is not None and found.verdict is not None
    assert len(specs) == 6 and len(found.front) == len(specs)  # the default and a grid of five, each a policy
    v = found.verdict
    assert v.run.label == specs[result.pick.row]
    assert set(v.run.tied) == {specs[i] for i in result.pick.tied}
    # the same numbers behind them: each setting's recall and cost are the same in both
    front = found.front.set_index("label")
    for spec, e in zip(specs, result.evaluations, strict=True):
        assert front.loc[spec, "needed_recall"] == pytest.approx(e.measures["needed_recall"].mean)
        assert front.loc[spec, "effective_tokens"] == pytest.approx(e.measures["effective_tokens"].mean)
    # the pick is not decided by the order the two faces list the settings in
    costs = front["effective_tokens"]
    assert (costs == costs[v.run.label]).sum() == 1
    # and the command prints it
    run = next(line for line in lines(v) if line.key == "run")
    assert " ".join(f"run: {run.text}".split()) in " ".join(printed.split())


def test_the_fixture_has_a_tie_to_agree_on(both):
    """Without a tie the test above would check the ties of nothing."""
    result, _, found, _ = both
    assert result.pick.tied and found.verdict.run.tied
