"""`ctxlab compactions`: the compactions agents recorded in their logs, graded by what the agent did
next beside each summarizing preset at the same call (`ctxlab.replay.compaction_grading`), then
ctxlab's strategies at the same cut and size by regex fact recall, and the call where the agent's own
preset compacts when the log is replayed per turn. Parses, calls the library, prints (or writes
JSON lines, or stores the gradings with ``--db``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from ctxlab.cli.app import command
from ctxlab.cli.common import (
    Db,
    Limit,
    SkipInvalid,
    Skips,
    Sources,
    console,
    load_sources,
    numeric_table,
    print_skips,
    progress,
)
from ctxlab.errors import CtxlabError

if TYPE_CHECKING:
    import pandas as pd


@command()
def compactions(
    sources: Sources,
    counter: Annotated[str, typer.Option(help="Counter for every size (and the window the strategies are given).")] = "o200k_base",
    strategy: Annotated[list[str] | None, typer.Option(
        help="ctxlab strategy spec(s) to compare with the agent.", show_default="compaction, sliding_window")] = None,
    window: Annotated[int | None, typer.Option(
        help="Window the agent's preset is replayed at (default: the log's: Claude Code 200,000, else its "
             "model's in litellm's map).", min=1)] = None,
    standin: Annotated[list[str] | None, typer.Option(
        help="Summarizing preset(s) graded at each compaction beside the agent's own summary.",
        show_default="the 13 summarizing presets")] = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print only the gradings, one JSON object per compaction and candidate.")] = False,
    db: Db = None,
    limit: Limit = None,
    skip_invalid: SkipInvalid = False,
) -> None:
    """Each compaction an agent recorded, graded by the calls it made next (needed recall of the strings
    only the summarized part held, in context, non-regex, instructions, observed and modelled refetch)
    beside each summarizing preset run at the same call; then regex fact recall beside ctxlab's
    strategies, and the call where the agent's preset (claude_code, pi, codex) compacts."""
    import pandas as pd

    from ctxlab.analysis.logs import compaction_side_by_side, compaction_summary
    from ctxlab.cli.compaction_grades import print_grades, save_grades
    from ctxlab.metrics.compactions import DEFAULT_STRATEGIES, recorded_compaction_rows
    from ctxlab.replay.compaction_grading import SUMMARIZING, grade_compactions
    from ctxlab.replay.compaction_points import line_up
    from ctxlab.strategies import get_strategy
    from ctxlab.tokens import get_counter

    count = get_counter(counter)
    specs, standins = list(strategy or DEFAULT_STRATEGIES), list(standin or SUMMARIZING)
    for spec in (*specs, *standins):
        get_strategy(spec)  # a bad spec fails here, before any work
    skips, rows, lined, graded = Skips(), [], [], []
    for seq, conv in enumerate(progress(load_sources(sources, skip_invalid, skips, limit), "Re-doing compactions")):
        graded += grade_compactions(conv, count, standins, window)
        if not as_json:
            rows += [{**row._asdict(), "dataset": "", "seq": seq} for row in recorded_compaction_rows(conv, count, specs)]
            lined += line_up(conv, count, window)
    if not graded:
        raise CtxlabError(f"no recorded compactions in {', '.join(sources)} "
                          "(agent logs carry them in meta.compactions)")
    if db is not None:
        save_grades(db, graded, count.name, quiet=as_json)
    if as_json:
        print_grades(graded, count.name, as_json=True)
        return
    print_grades(graded, count.name)
    df = pd.DataFrame(rows)
    _print_side_by_side(compaction_side_by_side(df), count.name)
    _print_summary(compaction_summary(df))
    _print_errors(df)
    _print_line_up(lined, count.name)
    print_skips(skips)


def _print_side_by_side(wide: pd.DataFrame, counter: str) -> None:
    candidates = [c.removesuffix(" recall") for c in wide.columns if c.endswith(" recall")]
    table = numeric_table(escape(f"Regex fact recall at the agent's size (tokens: {counter}; at message `at` the agent "
                                 "summarized messages[:index])"), "conversation", "#", "index / at", "tokens before",
                          *(f"{c}\nrecall / tokens" for c in candidates))
    for row in wide.itertuples(index=False):
        values = dict(zip(wide.columns, row, strict=False))
        cells = [f"{_pct(values[f'{c} recall'])} / {_int(values[f'{c} tokens'])}" for c in candidates]
        table.add_row(str(values["conversation_id"]), str(values["compaction"]),
                      f"{values['cut_index']} / {values['at_index']}",
                      _int(values["tokens_before"]), *cells)
    console().print(table)


def _print_summary(summary: pd.DataFrame) -> None:
    table = numeric_table("Mean over compactions", "candidate", "compactions", "fact recall", "tokens",
                          "summary tokens", "best recall")
    for row in summary.itertuples(index=False):
        table.add_row(row.strategy, str(row.compactions), _pct(row.fact_recall), _int(row.tokens_after),
                      _int(row.summary_tokens), _pct(row.best_recall_share))
    console().print(table)


def _print_errors(df: pd.DataFrame) -> None:
    errors = df[df["error"].notna()] if "error" in df else df.iloc[0:0]
    for row in errors.itertuples(index=False):
        console().print(f"[yellow]{escape(str(row.conversation_id))} compaction {row.compaction}, "
                        f"{escape(row.strategy)}:[/] {escape(row.error)}")


def _print_line_up(lined: list, counter: str) -> None:  # `LinedUp`s
    if not lined:
        return
    table = numeric_table(escape(f"Where the agent's own preset compacts (per-turn replay of the log; counter: {counter}; "
                                 "calls numbered from 1; apart: preset minus agent)"),
                          "conversation", "#", "preset", "window", "agent\ncall / at / tokens",
                          "preset\ncall / at / tokens", "signal", "apart\ncalls / tokens")
    for r in lined:
        if r.error:
            console().print(f"[yellow]{escape(r.conversation_id)} compaction {r.compaction}:[/] {escape(r.error)}")
            continue
        preset = f"never ({_int(r.context_tokens)} at the agent's call)" if r.preset_call is None \
            else f"{r.preset_call} / {r.preset_at} / {_int(r.preset_tokens)}"
        apart = "-" if r.preset_call is None else f"{_signed(r.calls_apart)} / {_signed(r.tokens_apart)}"
        table.add_row(escape(r.conversation_id), str(r.compaction), r.preset, f"{r.window:,}",
                      f"{_int(r.agent_call)} / {_int(r.agent_at)} / {_int(r.agent_tokens)}", preset,
                      escape(r.signal or "-"), apart)
    console().print(table)


def _signed(value: int | None) -> str:
    return "-" if value is None else f"{value:+,}"


def _pct(value: float | None) -> str:
    return "-" if value is None or value != value else f"{100 * value:.0f}%"


def _int(value: float | None) -> str:
    return "-" if value is None or value != value else f"{int(value):,}"
