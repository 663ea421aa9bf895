"""`ctxlab agree`: does a model, given what a policy sends, propose the call the agent made?"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ctxlab.cli.app import command, fail
from ctxlab.cli.common import Db, Limit, Reference, SkipInvalid, Sources, console, df_table
from ctxlab.replay.config import DEFAULT_COUNTER

HEADERS = {"policy": "policy", "counter": "counter", "sessions": "sessions", "calls": "calls", "errors": "failed",
           "text": "text answers", "name": "same tool as the agent", "overlap": "argument overlap",
           "arg_exact": "args exact", "same_as_baseline": "same tool as with full history",
           "tokens_sent": "tokens sent / call", "cost": "$ (calls)"}


@command()
def agree(
    sources: Sources,
    strategy: Annotated[list[str], typer.Option(
        help="Policy to check, NAME[:key=value,...] (repeatable); noop (everything sent) is added as the baseline.",
        show_default=False)],
    window: Annotated[int, typer.Option(help="Your model's context window in tokens (what every call must fit in).",
                                        show_default=False)],
    model: Annotated[str | None, typer.Option(
        help="litellm model that proposes the next call [default: $CTXLAB_AGREEMENT_MODEL, else $CTXLAB_LLM_MODEL].",
        show_default=False)] = None,
    calls: Annotated[int, typer.Option(help="Agent tool calls sampled per session.", min=1)] = 5,
    seed: Annotated[int, typer.Option(help="Seed of the sampling of calls.")] = 0,
    baseline: Annotated[bool, typer.Option(
        help="Also ask with the full history (noop), the ceiling (--no-baseline: do not).")] = True,
    reference: Reference = DEFAULT_COUNTER,
    jobs: Annotated[int, typer.Option(help="Model calls in flight at once.", min=1)] = 4,
    db: Db = None,
    limit: Limit = None,
    skip_invalid: SkipInvalid = False,
) -> None:
    """Next-action agreement: at a few sampled calls of each session, a model gets what each policy
    sends (with the session's tools) and proposes the next tool call, scored against the call the
    agent made: same tool, argument overlap, text instead of a call (docs/agreement.md).

    Needs a model (litellm, by --model or $CTXLAB_AGREEMENT_MODEL, and the provider's key); calls
    are cached, so running the same command again costs nothing.
    """
    from ctxlab.metrics.agreement import agreement_endpoint
    from ctxlab.replay.agreement import NO_MODEL, AgreeConfig
    from ctxlab.replay.agreement import agree as run

    if not agreement_endpoint(model).model:
        raise fail(NO_MODEL)
    config = AgreeConfig(tuple(sources), tuple(strategy), window, model=model, calls=calls, seed=seed,
                         baseline=baseline, reference=reference, db=db, limit=limit, skip_invalid=skip_invalid,
                         jobs=jobs)
    summary = _run(config, run)
    _show(summary, window, reference)


def _run(config: Any, run: Any) -> Any:
    """The run with a progress bar; Ctrl-C ends it cleanly (the same command finishes it)."""
    from ctxlab.replay import RichProgress
    from ctxlab.replay.agreement import AgreeInterrupted

    try:
        with RichProgress(total=config.limit * len(config.sources) if config.limit else None) as progress:
            return run(config, progress)
    except AgreeInterrupted as exc:
        raise fail(str(exc), code=130) from None


def _show(summary: Any, window: int, reference: str) -> None:
    from rich.markup import escape

    from ctxlab import store
    from ctxlab.analysis.agreement import agreement_table

    with store.reading(summary.db) as con:
        rows = store.agreement_rows(con, summary.run_id)
    table = agreement_table(rows)
    out = console()
    title = (f"Next-action agreement at a {window:,}-token window ({reference} counts; "
             "[low, high] = 95% interval over sessions)")
    out.print(df_table(_formatted(table), escape(title), HEADERS))
    made = rows[rows["cached"] == False]  # noqa: E712 (a column, not a bool)
    cost = made["cost_usd"].sum() if made["cost_usd"].notna().any() else None
    out.print(f"model {escape(str(rows['model'].iloc[0]) if len(rows) else '-')}: {len(made)} call(s) made, "
              f"{len(rows) - len(made)} read from the cache; {int(made['input_tokens'].fillna(0).sum()):,} input and "
              f"{int(made['output_tokens'].fillna(0).sum()):,} output tokens"
              + (f", ${cost:,.4f}" if cost is not None else ", cost unknown for this model"))
    for note in summary.notes[:10]:
        out.print(f"[yellow]note:[/yellow] {escape(note)}")
    if len(summary.notes) > 10:
        out.print(f"[yellow]note:[/yellow] and {len(summary.notes) - 10} more")
    out.print(f"run {summary.run_id} in {summary.db} (table agreement_rows)")


def _formatted(table: Any) -> Any:
    """The agreement table with each rate beside its interval."""
    def ci(mean: float, low: float, high: float) -> str:
        return "-" if mean != mean else f"{mean:.2f} [{low:.2f}, {high:.2f}]"

    return table.assign(
        policy=table["label"],
        text=table["text_answers"],
        name=[ci(*r) for r in table[["name_agreement", "name_low", "name_high"]].itertuples(index=False)],
        overlap=[ci(*r) for r in table[["arg_overlap", "overlap_low", "overlap_high"]].itertuples(index=False)],
        cost=table["cost_usd"].map(lambda c: "-" if c != c else f"{c:,.4f}"))
