"""What sessions cost under a price model with prompt caching: per variant, the cheapest per
dataset, and a session's cost over its calls. Inputs are `ctxlab.store.session_costs` and
`ctxlab.store.unit_costs` frames (per-turn replays run with ``--price-model``)."""

from __future__ import annotations

import pandas as pd

from ctxlab.analysis import ties

VARIANT = ["label", "counter", "window"]
TOKENS = ["input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens"]


def variant_costs(sessions: pd.DataFrame) -> pd.DataFrame:
    """Mean per session, per price model and variant: calls (one decimal), tokens by kind (whole
    tokens), the cache-read share of the prompt, and dollars (summarizer calls included)."""
    if sessions.empty:
        return pd.DataFrame(columns=["price_model", *VARIANT, "sessions", "calls", *TOKENS, "cache_read_share",
                                     "cost_usd"])
    grouped = sessions.groupby(["price_model", *VARIANT], observed=True, sort=True)
    out = grouped[["calls", *TOKENS, "prompt_tokens", "cost_usd"]].mean().reset_index()
    out.insert(len(VARIANT) + 1, "sessions", grouped.size().to_numpy())
    out["cache_read_share"] = out["cache_read_tokens"] / out["prompt_tokens"].where(out["prompt_tokens"] > 0)
    # Means of counts over sessions: "10.3 calls", not "10.2857 calls".
    return out.drop(columns=["prompt_tokens"]).round({"calls": 1, **dict.fromkeys(TOKENS, 0)})


def cheapest(sessions: pd.DataFrame, *, exclude: tuple[str, ...] = ("noop",)) -> pd.DataFrame:
    """Per dataset, price model and window: the variant with the lowest mean session cost, its
    cost, how many other variants tie with it on cost by the one rule (zero inside the paired 95%
    interval over sessions of the difference, `ctxlab.analysis.ties`), the uncompressed baseline's
    cost (when the run has it) and the saving against it."""
    rows = []
    for (dataset, model, _), group in sessions.groupby(["dataset", "price_model", "window"], observed=True, sort=True):
        wide = group.pivot_table(index="seq", columns=VARIANT, values="cost_usd", aggfunc="sum", observed=True)
        contenders = [c for c in wide.columns if c[0] not in exclude]
        if not contenders:
            continue
        best = min(contenders, key=lambda c: (wide[c].mean(), c))
        tied = sum(c != best and ties.tied(_spend(wide[c]), _spend(wide[best])) for c in contenders)
        base = [wide[c].mean() for c in wide.columns if c[0] in exclude]
        baseline = float(base[0]) if base else float("nan")
        cost = float(wide[best].mean())
        rows.append([dataset, model, best[0], best[1], int(best[2]), cost, tied, baseline,
                     1 - cost / baseline if baseline else float("nan")])
    return pd.DataFrame(rows, columns=["dataset", "price_model", "label", "counter", "window", "cost_usd", "tied",
                                       "baseline_cost_usd", "saving"])


def _spend(costs: pd.Series) -> ties.Ratio:
    """A variant's session costs as a ratio (a session it lacks: weight 0)."""
    return ties.Ratio.of(costs.fillna(0.0), costs.notna())


def cumulative(units: pd.DataFrame) -> pd.DataFrame:
    """One session's calls per variant in order, with running totals of dollars, cache reads and
    cache writes (`units`: `unit_costs` rows of one session and price model)."""
    ordered = units.sort_values([*VARIANT, "unit"])
    grouped = ordered.groupby(VARIANT, observed=True, sort=False)
    return ordered.assign(call=grouped.cumcount() + 1, cost_cum=grouped["cost_usd"].cumsum(),
                          read_cum=grouped["cache_read_tokens"].cumsum(),
                          write_cum=grouped["cache_write_tokens"].cumsum())


__all__ = ["cheapest", "cumulative", "variant_costs"]
