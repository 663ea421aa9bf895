"""The demo's closing verdict: read from the stored per-turn run, and consistent with its front."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ctxlab import store
from ctxlab.analysis import frames
from ctxlab.analysis.recommend import frontier
from ctxlab.cost import input_price
from ctxlab.demo import EXCLUDED, Verdict, evaluations, verdict, verdicts
from ctxlab.tune.measures import Goal, tied
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


def test_a_verdict_per_dataset_and_window_with_needed_strings(stored):
    results, _, found = stored
    assert {(v.dataset, v.window) for v in found} == {
        (d, int(w)) for (d, w), rows in results.groupby(["dataset", "window"], observed=True)
        if rows["needed_total"].fillna(0).sum() > 0}


def _variant(name: str) -> tuple[str, str]:
    """(label, counter) of a verdict's name: ``label [counter]``, or a label run with o200k_base only."""
    label, _, counter = name.partition(" [")
    return label, counter.removesuffix("]") or "o200k_base"


def test_the_verdict_agrees_with_the_stored_front(stored):
    """Each named policy's recall and cost are those `ctxlab recommend` computes from the same rows;
    no competing policy keeps more than the best or costs less than the cheapest."""
    results, costs, found = stored
    for v in found:
        rows = results[(results["dataset"] == v.dataset) & (results["window"] == v.window)]
        priced = costs[(costs["dataset"] == v.dataset) & (costs["window"] == v.window)]
        front = frontier(rows, "o200k_base", priced, input_price(PRICE)).set_index(["label", "counter"])
        for choice in (v.best, v.cheapest, v.run):
            assert choice.recall.mean == pytest.approx(front.loc[_variant(choice.label), "needed_recall"])
            assert choice.cost.mean == pytest.approx(front.loc[_variant(choice.label), "effective_usd"])
        front = front.drop(index=list(EXCLUDED), level="label", errors="ignore")
        rejected = front["orphan_rate"] + front["overflow_rate"]
        pool = front[(rejected - rejected.min()).abs() < 1e-12]
        assert v.policies == len(front) and v.competing == len(pool)
        assert v.rejected == pytest.approx(rejected.min())
        assert v.best.recall.mean == pytest.approx(pool["needed_recall"].max())
        assert v.cheapest.cost.mean == pytest.approx(pool["effective_usd"].min())


def test_the_one_to_run_is_the_cheapest_of_those_tied_with_the_best(stored):
    results, costs, found = stored
    for v in found:
        assert v.run.label == v.best.label or v.run.label in v.best.tied
        level = {v.best.label, *v.best.tied}
        rows = results[(results["dataset"] == v.dataset) & (results["window"] == v.window)]
        priced = costs[(costs["dataset"] == v.dataset) & (costs["window"] == v.window)]
        by_name = {e.setting.preset: e for e in evaluations(rows, priced, "o200k_base", input_price(PRICE))}
        assert all(v.run.cost.mean <= by_name[name].measures["effective_usd"].mean for name in level)


def test_ties_are_paired_ties_and_labels_run_with_two_counters_are_named_with_their_counter(stored):
    results, costs, _ = stored
    rows = results[(results["dataset"] == "agent_sessions") & (results["window"] == 8000)]
    priced = costs[(costs["dataset"] == "agent_sessions") & (costs["window"] == 8000)]
    found = evaluations(rows, priced, "o200k_base", input_price(PRICE))
    names = [e.setting.preset for e in found]
    assert len(names) == len(set(names)) and not any(n.startswith("noop") for n in names)
    assert any(n.endswith(" [o200k_base]") for n in names)  # the fixture runs o200k_base and each seed counter
    v = verdict(found, Goal("needed_recall", "effective_usd", "rejected"), "agent_sessions", 8000)
    assert v is not None
    best = next(e for e in found if e.setting.preset == v.best.label)
    for e in found:
        if e.setting.preset in v.best.tied:
            assert tied(e, best, "needed_recall")


def test_no_verdict_without_needed_strings():
    assert verdict([], Goal("needed_recall", "effective_usd", "rejected"), "d", 1000) is None
