"""The demo's closing verdict: read from the stored per-turn run, the verdict `ctxlab recommend` and
the report give on the same rows, decided by the one rule for a tie."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.analysis.recommend import policies
from ctxlab.analysis.sessions import session_rows
from ctxlab.analysis.ties import Ratio, tied
from ctxlab.analysis.verdict import EXCLUDED, Verdict, aligned
from ctxlab.analysis.wording import lines
from ctxlab.cost import input_price
from ctxlab.demo import verdicts
from tests.ui_fixtures import PRICE_MODELS

PRICE = PRICE_MODELS[0]


@pytest.fixture(scope="module")
def stored(demo_db: Path) -> tuple[pd.DataFrame, pd.DataFrame, list[Verdict]]:
    with store.reading(demo_db) as con:
        run = store.resolve_run(con, "ui-demo")
        results = frames.results(con, run, mode="per-turn")
        costs = store.session_costs(con, run)
    found = verdicts(str(demo_db), run, reference="o200k_base", price_model=PRICE)
    return results, costs[costs["price_model"] == PRICE], found


def _window(results: pd.DataFrame, costs: pd.DataFrame, v: Verdict) -> tuple[pd.DataFrame, pd.DataFrame]:
    return (results[(results["dataset"] == v.dataset) & (results["window"] == v.window)],
            costs[(costs["dataset"] == v.dataset) & (costs["window"] == v.window)])


def test_a_verdict_per_dataset_and_window_with_needed_strings(stored):
    results, _, found = stored
    assert {(v.dataset, v.window) for v in found} == {
        (d, int(w)) for (d, w), rows in results.groupby(["dataset", "window"], observed=True)
        if rows["needed_total"].fillna(0).sum() > 0}


def test_the_verdict_agrees_with_the_stored_front(stored):
    """Each named policy's recall and cost are those `ctxlab recommend` computes from the same rows;
    no competing policy keeps more than the best or costs less than the cheapest."""
    results, costs, found = stored
    for v in found:
        rows, priced = _window(results, costs, v)
        front = policies(rows, "o200k_base", priced, input_price(PRICE)).front.set_index(["label", "counter"])
        for choice in (v.best, v.cheapest, v.run):
            assert choice.recall == pytest.approx(front.loc[(choice.label, choice.counter), "needed_recall"])
            assert choice.cost == pytest.approx(front.loc[(choice.label, choice.counter), "effective_usd"])
        front = front.drop(index=[*EXCLUDED, *v.in_sample], level="label", errors="ignore")
        rejected = front["rejected_rate"]
        pool = front[rejected == rejected.min()]
        assert v.policies == len(front) and v.competing == len(pool)
        assert v.rejected == pytest.approx(rejected.min())
        assert v.best.recall == pytest.approx(pool["needed_recall"].max())
        assert v.cheapest.cost == pytest.approx(pool["effective_usd"].min())


def test_the_one_to_run_is_the_cheapest_of_those_tied_with_the_best_by_the_paired_rule(stored):
    results, costs, found = stored
    assert any(v.best.tied for v in found)  # the fixture has ties to check
    for v in found:
        assert v.run.name == v.best.name or v.run.name in v.best.tied
        rows, priced = _window(results, costs, v)
        sessions = session_rows(rows, "o200k_base", priced, input_price(PRICE))
        front = policies(rows, "o200k_base", priced, input_price(PRICE)).front
        pool = front[~front["label"].isin([*EXCLUDED, *v.in_sample]) & (front["rejected_rate"] == v.rejected)].reset_index(drop=True)
        names = [f"{r.label} [{r.counter}]" if (front["label"] == r.label).sum() > 1 else r.label
                 for r in pool.itertuples()]
        recall = dict(zip(names, (Ratio.of(s["needed_kept"], s["needed_total"]) for s in aligned(sessions, pool)),
                          strict=True))
        expected = {n for n in names if n != v.best.name and tied(recall[n], recall[v.best.name])}
        assert set(v.best.tied) == expected, (v.dataset, v.window)
        level = pool[[n in {v.best.name, *v.best.tied} for n in names]]
        assert v.run.cost == pytest.approx(level["effective_usd"].min())


def test_a_window_nothing_exceeds_says_so(stored):
    """Chats of the fixture peak under the 8,000-token window: the verdict says nothing needs
    compressing rather than naming noise."""
    _, _, found = stored
    quiet = [v for v in found if v.window == 8000 and v.dataset == "chats"]
    assert quiet and not quiet[0].needs_compression and quiet[0].peak_tokens <= 8000
    run = lines(quiet[0])[0]
    assert run.key == "run" and run.text.startswith("no policy needed") and "nothing needs compressing" in run.text
    assert quiet[0].evidence.startswith("Nothing needs compressing here")
    busy = [v for v in found if v.dataset == "agent_sessions" and v.window == 2000]
    assert busy and busy[0].needs_compression and lines(busy[0])[0].text.startswith(busy[0].run.name)
