"""Per policy and session: the one table every recall, cost and rejected-call figure is pooled from.

`session_rows` turns the per-turn units of the `results` view (one per provider call, compressed
before the call as the agent would, graded by what its recorded next action used) into one row
per variant and session. `ctxlab recommend`'s front, the dominance check, the tuner's measures and
the demo's verdict all read it, so a recall or a rejected share is defined here once:

- a recall (`RECALLS`) is a (kept, total) pair of session sums, pooled over calls and sessions;
- a **rejected call** is one a provider would answer with an error: the compression failed, or
  what it sends has an orphaned tool call or result, or it is over the window under the reference
  tokenizer. A call is counted once however many of these it has (``rejected``); ``orphaned``,
  ``overflowed`` and ``failed`` count each reason.
"""

from __future__ import annotations

import pandas as pd

from ctxlab.analysis.tables import CONVERSATION

VARIANT = ("label", "counter", "window")
# Summed per session from the per-turn units (kept / total pairs pool into recalls).
SUMS = {"facts_kept": "facts_kept", "facts_total": "facts_total", "needed_kept": "needed_kept",
        "needed_total": "needed_total", "needed_kept_in_context": "framed_kept",
        "needed_old_kept": "old_kept", "needed_old_total": "old_total", "needed_regex_kept": "regex_kept",
        "needed_regex_total": "regex_total", "refetch_tokens": "refetch_tokens",
        "instructions_kept": "instructions_kept", "instructions_total": "instructions_total",
        "limit_kept": "limit_kept"}
# Every recall: column name -> the (kept, total) session sums it pools.
RECALLS = {"needed_recall": ("needed_kept", "needed_total"), "in_context_recall": ("framed_kept", "needed_total"),
           "old_recall": ("old_kept", "old_total"), "non_regex_recall": ("non_regex_kept", "non_regex_total"),
           "instruction_survival": ("instructions_kept", "instructions_total"),
           "fact_recall": ("facts_kept", "facts_total")}
REASONS = ("orphaned", "overflowed", "failed")
# The columns of the `results` view `unit_rows` reads (`ctxlab.analysis.frames.unit_results` reads only these).
READS = (*VARIANT, *CONVERSATION, "unit", "turn", "reference", "mode", "status", "reference_tokens_before",
         "reference_tokens_after", "fits_reference", "orphan_calls", "orphan_results", *SUMS)
COLUMNS = [*VARIANT, *CONVERSATION, "calls", "tokens_sent", *SUMS.values(), "non_regex_kept", "non_regex_total",
           "effective_tokens", "rejected", *REASONS, "peak_tokens", "limit_missing"]


def rejected_calls(units: pd.DataFrame) -> pd.DataFrame:
    """Per unit, whether a provider would reject the call and why (see the module docstring):
    boolean columns ``orphaned``, ``overflowed``, ``failed`` and ``rejected`` (any of them)."""
    ok = units["status"] == "ok"
    orphaned = ok & ((units["orphan_calls"].fillna(0) > 0) | (units["orphan_results"].fillna(0) > 0))
    overflowed = ok & ~units["fits_reference"].astype("boolean").fillna(True).astype(bool)
    return pd.DataFrame({"orphaned": orphaned, "overflowed": overflowed, "failed": ~ok,
                         "rejected": orphaned | overflowed | ~ok}, index=units.index)


def unit_rows(results: pd.DataFrame, reference: str) -> pd.DataFrame:
    """One row per per-turn unit (call) measured with `reference`: its `VARIANT`, session,
    ``unit`` and ``turn`` (the call's place in the session, the same for every policy), what it sends (``sent``: a failed compression sends the whole history), the `SUMS`
    under their short names, non-regex needed strings, and why a provider would reject it
    (`rejected_calls`). `session_rows` sums these per session."""
    units = results[(results["reference"] == reference) & (results["mode"] == "per-turn")]
    ok = units["status"] == "ok"
    frame = pd.concat([units[[*VARIANT, *CONVERSATION, "unit", "turn", "reference_tokens_before"]].assign(
        sent=units["reference_tokens_after"].where(ok, units["reference_tokens_before"]).fillna(0),
        **{name: _column(units, source) for source, name in SUMS.items()},
        # a unit stored before the hindsight limit existed has none: its variant shows no limit
        limit_missing=units["limit_kept"].isna().astype(int) if "limit_kept" in units else 1),
        rejected_calls(units).astype(int)], axis=1)
    return frame.assign(non_regex_kept=frame["needed_kept"] - frame["regex_kept"],
                        non_regex_total=frame["needed_total"] - frame["regex_total"])


def session_rows(results: pd.DataFrame, reference: str, costs: pd.DataFrame | None = None,
                 input_price: float | None = None, *, units: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per variant x session (`COLUMNS`): calls, tokens sent, the `SUMS`, non-regex needed
    strings, effective tokens (sent plus refetch), rejected calls, ``peak_tokens``: the largest
    call without compression, and ``limit_missing``: calls stored without the hindsight limit.

    Args:
        results: rows of the `results` view (per-turn units; one row per unit and reference).
        reference: the tokenizer that counts what is sent and decides overflow.
        costs: `ctxlab.store.session_costs` rows of ONE price model; adds ``cost_usd`` (a session
            without a priced call, every compression failed, is billed nothing) and
            ``effective_usd`` (plus the refetch tokens at `input_price`, USD per token).
        input_price: the price model's uncached input price.
        units: the `unit_rows` of `results`, when already at hand.
    """
    frame = unit_rows(results, reference) if units is None else units
    if frame.empty:
        return pd.DataFrame(columns=COLUMNS if costs is None else [*COLUMNS, "cost_usd", "effective_usd"])
    summed = ["sent", *SUMS.values(), "non_regex_kept", "non_regex_total", "rejected", *REASONS, "limit_missing"]
    rows = (frame.groupby([*VARIANT, *CONVERSATION], observed=True, sort=True)
            .agg(calls=("unit", "size"), **{n: (n, "sum") for n in summed},
                 peak_tokens=("reference_tokens_before", "max"))
            .reset_index().rename(columns={"sent": "tokens_sent"}))
    rows = rows.assign(effective_tokens=rows["tokens_sent"] + rows["refetch_tokens"])[COLUMNS]
    return rows if costs is None else _priced(rows, costs, input_price)


def _column(units: pd.DataFrame, name: str) -> pd.Series:
    return units[name].fillna(0) if name in units else pd.Series(0, index=units.index)


def _priced(rows: pd.DataFrame, costs: pd.DataFrame, input_price: float | None) -> pd.DataFrame:
    keys = [*VARIANT, *CONVERSATION]
    dollars = costs.groupby(keys, observed=True)["cost_usd"].sum().rename("cost_usd").reset_index()
    out = rows.merge(dollars, on=keys, how="left")
    out["cost_usd"] = out["cost_usd"].fillna(0.0)
    out["effective_usd"] = out["cost_usd"] + out["refetch_tokens"] * (input_price or 0.0)
    return out


__all__ = ["COLUMNS", "READS", "REASONS", "RECALLS", "SUMS", "VARIANT", "rejected_calls", "session_rows", "unit_rows"]
