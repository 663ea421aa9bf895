"""`ctxlab compactions`' gradings: the table per compaction and candidate, the stand-ins pooled
against the agents' own summaries, JSON lines, and the store (`--db`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.markup import escape

from ctxlab.cli.common import console, numeric_table

if TYPE_CHECKING:
    import pandas as pd

    from ctxlab.replay.compaction_grading import Graded


def print_grades(graded: Sequence[Graded], counter: str, *, as_json: bool = False) -> None:
    """The gradings as tables, or as one JSON object per line (compaction x candidate)."""
    if as_json:
        for g in graded:
            sys.stdout.write(json.dumps(g.row._asdict(), ensure_ascii=False) + "\n")
        return
    import pandas as pd

    from ctxlab.analysis.standin import gap_table, own_preset_gap, per_compaction

    gaps = per_compaction(graded)
    _per_compaction(graded, gaps, counter)
    rows = pd.DataFrame([g.row._asdict() for g in graded])
    _pooled(gap_table(rows, "these logs"))
    own = own_preset_gap(rows, "these logs")
    if own is not None:
        console().print(escape(own.line()))
    for g in graded:
        if g.row.error:
            console().print(f"[yellow]{escape(g.row.conversation_id)} compaction {g.row.compaction}, "
                            f"{escape(g.row.candidate)}:[/] {escape(g.row.error)}")


def save_grades(db: str, graded: Sequence[Graded], counter: str, *, quiet: bool = False) -> None:
    """Store the gradings' rows as one grading (`compaction_grades`, migration 9)."""
    from ctxlab import store
    from ctxlab.store.compaction_grades import save_compaction_grades

    with store.writing(db) as con:
        grading = save_compaction_grades(con, [g.row for g in graded], counter)
    if not quiet:
        console().print(f"grading {grading} ({len(graded)} rows) stored in {db}, table compaction_grades")


def _per_compaction(graded: Sequence[Graded], gaps: pd.DataFrame, counter: str) -> None:
    found = {(r.conversation_id, r.compaction, r.candidate): r for r in gaps.itertuples(index=False)}
    table = numeric_table(escape(
        f"Recorded compactions graded by the calls up to the next one (tokens: {counter}; needed: strings the calls "
        "used that only the summarized part held; stand-in - agent with a 95% interval over calls)"),
        "conversation", "#", "candidate", "calls", "needed", "recall", "in context", "non-regex", "instructions",
        "summary tokens", "refetch observed\ncalls / tokens", "refetch\nmodelled", "stand-in - agent")
    for g in graded:
        r = g.row
        if r.error:
            continue
        gap = found.get((r.conversation_id, r.compaction, r.candidate))
        table.add_row(escape(r.conversation_id[:12]), str(r.compaction), escape(r.candidate), str(r.calls),
                      str(r.needed), _pct(r.needed_recall), _pct(r.in_context_recall), _pct(r.non_regex_recall),
                      f"{r.instructions_kept}/{r.instructions}", f"{r.summary_tokens:,}",
                      "-" if r.refetch_observed_calls is None
                      else f"{r.refetch_observed_calls} / {r.refetch_observed_tokens:,}",
                      f"{r.refetch_model_tokens:,}", "-" if gap is None else _points(gap.gap, gap.low, gap.high))
    console().print(table)


def _pooled(table_df: pd.DataFrame) -> None:
    if table_df.empty:
        return
    table = numeric_table("Stand-ins against the agents' own summaries, pooled over compactions (95% interval over "
                          "compactions)", "candidate", "compactions", "stand-in recall", "agents' recall",
                          "stand-in - agents", "stand-in tokens", "agents' tokens")
    for r in table_df.itertuples(index=False):
        table.add_row(escape(r.candidate), str(r.compactions), _pct(r.standin_recall), _pct(r.agent_recall),
                      _points(r.gap, r.low, r.high), f"{r.standin_tokens:,.0f}", f"{r.agent_tokens:,.0f}")
    console().print(table)


def _points(gap: float, low: float, high: float) -> str:
    return f"{100 * gap:+.0f} [{100 * low:+.0f}, {100 * high:+.0f}]"


def _pct(value: float | None) -> str:
    return "-" if value is None or value != value else f"{100 * value:.0f}%"


__all__ = ["print_grades", "save_grades"]
