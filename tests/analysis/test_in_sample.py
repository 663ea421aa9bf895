"""A learned policy does not compete on the sessions its need model was fitted on: shown, not judged."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import ctxlab.cli  # noqa: F401  (registers every command)
from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.analysis.in_sample import fitted_here, fitted_on
from ctxlab.analysis.recommend import policies, stored_policies
from ctxlab.analysis.wording import competing
from ctxlab.cli.app import app
from ctxlab.strategies.mechanics.need_model import NeedModel

SOURCE, SESSIONS, WINDOW = "sample:agent_sessions", 6, 8000


def test_the_shipped_model_names_the_bundled_and_real_sessions_it_was_fitted_on():
    ids = fitted_on("learned")
    assert {"agent-0001", "agent-0120", "5fd1e58c-9635-410e-a644-133a96057c90"} <= ids  # bundled, pi real log
    assert fitted_on("recommended") == frozenset()
    assert fitted_on("learned:model=/nonexistent/model.json") == frozenset()  # unreadable: cannot tell
    assert fitted_here(["recommended", "learned"], ["agent-0003"]) == ("learned",)
    assert fitted_here(["learned"], ["my-own-session"]) == ()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple:
    """`ctxlab recommend` over bundled sessions with the shipped model and one fitted elsewhere."""
    folder = tmp_path_factory.mktemp("in_sample")
    shipped = NeedModel.default()
    elsewhere = folder / "elsewhere.json"
    elsewhere.write_text(shipped._replace(about={**shipped.about, "trained_on": ["mine (other-session)"]}).to_json())
    db = str(folder / "r.duckdb")
    specs = ["learned", f"learned:model={elsewhere}", "recommended", "sliding_window"]
    args = ["recommend", SOURCE, "--window", str(WINDOW), "--limit", str(SESSIONS), "--db", db, "--workers", "0",
            *(a for spec in specs for a in ("--strategy", spec))]
    printed = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert printed.exit_code == 0, printed.output
    with store.reading(db) as con:
        run_id = store.resolve_run(con, f"recommend-{WINDOW}")
        whole = policies(frames.results(con, run_id, mode="per-turn"), "o200k_base")
        sliced = stored_policies(con, run_id, "o200k_base")
    return specs, whole, sliced, printed.output


def test_the_shipped_model_is_shown_but_does_not_compete_on_its_training_sessions(run):
    specs, whole, sliced, printed = run
    for found in (whole, sliced):
        v = found.verdict
        assert v is not None and v.in_sample == ("learned",)
        assert "learned" in set(found.front["label"])  # still shown
        assert "learned" not in {v.run.label, v.best.label, v.cheapest.label, *v.competitors}
        assert v.policies == len(specs) - 1
        assert "not judged: learned" in competing(v) and "Not judged here: learned" in v.evidence
    assert "not judged: learned" in printed


def test_a_model_fitted_on_other_sessions_competes(run):
    specs, whole, sliced, _ = run
    assert specs[1] not in whole.verdict.in_sample and specs[1] not in sliced.verdict.in_sample
    assert whole.verdict == sliced.verdict
