"""Tables for agent logs: estimator error against the provider's billed counts, and recorded
compactions (the agent's own summary beside ctxlab's strategies).

Inputs are `ctxlab.analysis.frames.estimator_rows` (whose ``reference`` is a tokenizer or
``provider:<model>``) and `ctxlab.store.recorded_compactions`.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from ctxlab.analysis.tables import estimator_matrix
from ctxlab.metrics.compactions import AGENT
from ctxlab.metrics.provider import is_provider

PROVIDER_NOTE = (
    "A `provider:<model>` reference is what the model's provider billed, taken from agent logs: the difference "
    "between the prompt tokens of two consecutive calls is the real count of the messages between them (the "
    "system prompt and tool schemas cancel). Its rows are spans of messages (`delta:<start>-<end>`), not single "
    "messages; the reference tokenizers appear among its estimators, which shows how far, e.g., o200k_base is "
    "from what the provider counts.")
COMPACTION_NOTE = (
    "Each compaction the agent recorded, re-done by ctxlab on the same history at the size of the agent's context "
    "after it (its summary plus any messages it kept): fact recall counts the facts of that history found in what "
    "replaces it (the same facts for every row); tokens are counted with the run's counter.")
_STATS = ("fact_recall", "tokens_after", "summary_tokens")


def order_references(references: Iterable[str]) -> list[str]:
    """Tokenizer references first (sorted), then ``provider:*`` ones (sorted)."""
    refs = sorted(set(references))
    return [r for r in refs if not is_provider(r)] + [r for r in refs if is_provider(r)]


def default_reference(references: Iterable[str], preferred: str = "o200k_base") -> str | None:
    """`preferred` when present, else the first of `order_references` (None when there is none)."""
    refs = order_references(references)
    return preferred if preferred in refs else (refs[0] if refs else None)


def has_provider(references: Iterable[str]) -> bool:
    """Whether any reference is a provider's billed count."""
    return any(is_provider(r) for r in references)


def reference_matrix(rows: pd.DataFrame, value: str = "mean_signed_error_pct") -> pd.DataFrame:
    """An `estimator_table` statistic per estimator (rows) and reference (columns: tokenizers,
    then providers), so errors against the provider sit beside errors against tokenizers."""
    matrix = estimator_matrix(rows, columns="reference", value=value)
    if matrix.empty:
        return matrix
    return matrix[order_references(matrix.columns)]


def compaction_summary(recorded: pd.DataFrame) -> pd.DataFrame:
    """Per counter and candidate (``agent`` first): compactions scored, mean fact recall, mean
    tokens of the replacement and of its summary, and how often the candidate won on recall."""
    columns = ["counter", "strategy", "compactions", *_STATS, "best_recall_share"]
    ok = recorded[recorded["error"].isna()] if not recorded.empty else recorded
    if ok.empty:
        return pd.DataFrame(columns=columns)
    keys = ["dataset", "seq", "compaction", "counter"]
    best = ok.groupby(keys)["fact_recall"].transform("max")
    frame = ok.assign(best=(ok["fact_recall"] >= best - 1e-12).astype(float))
    out = (frame.groupby(["counter", "strategy"], sort=True)
           .agg(compactions=("compaction", "size"), fact_recall=("fact_recall", "mean"),
                tokens_after=("tokens_after", "mean"), summary_tokens=("summary_tokens", "mean"),
                best_recall_share=("best", "mean"))
           .reset_index())
    return out.sort_values(["counter", "strategy"], key=_agent_first).reset_index(drop=True)[columns]


def compaction_side_by_side(recorded: pd.DataFrame) -> pd.DataFrame:
    """One row per recorded compaction (and counter), with ``<candidate> recall`` and
    ``<candidate> tokens`` columns for the agent and each strategy."""
    index = ["dataset", "seq", "conversation_id", "compaction", "cut_index", "at_index", "counter"]
    ok = recorded[recorded["error"].isna()] if not recorded.empty else recorded
    if ok.empty:
        return pd.DataFrame(columns=[*index, "tokens_before"])
    before = ok.groupby(index)["tokens_before"].first()
    wide = ok.pivot_table(index=index, columns="strategy", values=["fact_recall", "tokens_after"], aggfunc="first")
    names = sorted(wide.columns.get_level_values(1).unique(), key=lambda s: (s != AGENT, s))
    out = pd.DataFrame({"tokens_before": before})
    for name in names:
        out[f"{name} recall"] = wide[("fact_recall", name)]
        out[f"{name} tokens"] = wide[("tokens_after", name)]
    return out.reset_index()


def _agent_first(column: pd.Series) -> pd.Series:
    return column.map(lambda s: f"{s != AGENT:d}{s}") if column.name == "strategy" else column
