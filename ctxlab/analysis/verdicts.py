"""A run's verdicts as every face shows them: per dataset and window of its per-turn results,
measured with one reference tokenizer and priced by one model, the same choice and the same
findings everywhere (`ctxlab recommend`, `ctxlab demo`, `ctxlab replay --policies`, the report,
the Which-policy page, notebook 01).

A finding a verdict carries is attached here and nowhere else: `with_standin` puts the stand-in gap
(issue 28: ctxlab's offline summary against the agents' own on recorded compactions) in its slot,
so each face renders it with the verdict's other lines (`ctxlab.analysis.wording`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any, NamedTuple

import pandas as pd

from ctxlab.analysis.recommend import Policies, by_dataset
from ctxlab.analysis.standin import StandinGap, summarizing
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
                 standin: StandinGap | None = None, price_model: str | None = None) -> RunPolicies | None:
    """A run's `ctxlab.analysis.recommend.by_dataset`, dollars under `price_model` (else the run's
    first by name; `sessions`: its `ctxlab.store.session_costs`); `reference` or, when the run lacks
    it, its first; each verdict carrying the stand-in gap when one was measured (`with_standin`).
    None without per-turn results."""
    turns = results[results["mode"] == "per-turn"]
    if turns.empty:
        return None
    refs = sorted(turns["reference"].unique())
    ref = reference if reference in refs else refs[0]
    models = sorted(sessions["price_model"].unique())
    model = price_model if price_model in models else (models[0] if models else None)
    costs = sessions[sessions["price_model"] == model] if model else None
    windows = by_dataset(turns, ref, costs, input_price(model) if model else None)
    return RunPolicies(ref, model, [with_standin(p, standin) for p in windows])


def stored(con: Any, run_id: str, reference: str = REFERENCE, *, dataset: str | None = None,
           price_model: str | None = None) -> RunPolicies | None:
    """`run_policies` of a stored run (its per-turn results and session costs, of one `dataset` or
    all), with the stand-in gap of the store's newest grading, else the shipped figure."""
    from ctxlab import store
    from ctxlab.analysis import frames
    from ctxlab.analysis.standin_shipped import stored_gap

    return run_policies(frames.results(con, run_id, dataset=dataset, mode="per-turn"),
                        store.session_costs(con, run_id, dataset=dataset), reference,
                        standin=stored_gap(con), price_model=price_model)


def with_standin(policies: Policies, gap: StandinGap | None) -> Policies:
    """`policies` with its verdict carrying `standin_finding`; unchanged without a verdict or a gap,
    when nothing needs compressing (no summary is written) or no policy compared summarizes."""
    v = policies.verdict
    labels = [str(label) for label in policies.front["label"].unique()] if len(policies.front) else []
    if v is None or gap is None or not v.needs_compression or not any(map(summarizing, labels)):
        return policies
    found = standin_finding(gap, labels, v.run.label)
    return policies._replace(verdict=dataclasses.replace(v, stand_in_gap=found))


def standin_finding(gap: StandinGap, labels: Iterable[str], run: str) -> Finding:
    """The stand-in gap as a verdict's finding: its line, and when the stand-in is much kinder than
    the agents' own summaries (`StandinGap.kinder`), a warning naming the summarizing policies among
    `labels` whose needed recall that overstates (`run`: the policy the verdict runs)."""
    flagged = [label for label in labels if summarizing(label)]
    detail = ""
    if gap.kinder and flagged:
        note = "; the policy to run is one of them" if run in flagged else ""
        detail = (f"Needed recall of the summarizing policies ({', '.join(flagged)}) is overstated by about "
                  f"{100 * gap.gap:.0f} points{note}: check with a real model (docs/quality.md).")
    return Finding(f"summaries written offline: {gap.line()}", detail, warn=gap.kinder)


__all__ = ["REFERENCE", "RunPolicies", "run_policies", "standin_finding", "stored", "with_standin"]
