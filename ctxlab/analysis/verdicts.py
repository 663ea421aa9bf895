"""A run's verdicts as every face shows them: per dataset and window of its per-turn results,
measured with one reference tokenizer and priced by one model, the same choice everywhere (the
report, notebook 01, `ctxlab demo`)."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import pandas as pd

from ctxlab.analysis.recommend import Policies, by_dataset
from ctxlab.analysis.standin import StandinGap
from ctxlab.analysis.verdict import Finding, Verdict
from ctxlab.cost import input_price

REFERENCE = "o200k_base"


class RunPolicies(NamedTuple):
    """A run's policies per dataset and window, as the report shows them: measured with
    ``reference``, priced by ``model`` (None when the run priced nothing)."""

    reference: str
    model: str | None
    windows: list[Policies]

    @property
    def verdicts(self) -> list[Verdict]:
        return [p.verdict for p in self.windows if p.verdict is not None]


def run_policies(results: pd.DataFrame, sessions: pd.DataFrame, reference: str = REFERENCE, *,
                 standin: StandinGap | None = None) -> RunPolicies | None:
    """A run's `ctxlab.analysis.recommend.by_dataset`, dollars under its first price model (by
    name; `sessions`: its `ctxlab.store.session_costs`); `reference` or, when the run lacks it, its
    first; each verdict carrying the stand-in gap when one was measured (`with_standin`). None
    without per-turn results."""
    turns = results[results["mode"] == "per-turn"]
    if turns.empty:
        return None
    refs = sorted(turns["reference"].dropna().unique())
    ref = reference if reference in refs else refs[0]
    model = sorted(sessions["price_model"].unique())[0] if not sessions.empty else None
    costs = sessions[sessions["price_model"] == model] if model else None
    windows = by_dataset(turns, ref, costs, input_price(model) if model else None)
    return RunPolicies(ref, model, [p._replace(verdict=with_standin(p.verdict, standin)) for p in windows])


def with_standin(verdict: Verdict | None, gap: StandinGap | None) -> Verdict | None:
    """`verdict` with the stand-in gap (issue 28: ctxlab's offline summary against the agents' own on
    recorded compactions) in its ``stand_in_gap`` slot, when one was measured."""
    if verdict is None or gap is None:
        return verdict
    return dataclasses.replace(verdict, stand_in_gap=Finding(f"summaries written offline: {gap.line()}"))


__all__ = ["REFERENCE", "RunPolicies", "run_policies", "with_standin"]
