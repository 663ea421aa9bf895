"""`ctxlab recommend`: replay sessions turn by turn through every policy at the user's window and
say which to run, with the Pareto front of fact recall against tokens sent as the evidence."""

from __future__ import annotations

from typing import Annotated

import typer

from ctxlab.cli.app import command
from ctxlab.cli.common import Db, Limit, SkipInvalid, Sources, console, df_table
from ctxlab.cli.replay import run_replay
from ctxlab.replay.config import DEFAULT_COUNTER, DEFAULT_WORKERS, SEED, ReplayConfig

FRONT_HEADERS = {"label": "policy", "counter": "counter", "sessions": "sessions", "calls": "calls",
                 "tokens_sent": "tokens sent / session", "fact_recall": "fact recall", "recall_low": "low",
                 "recall_high": "high", "orphan_rate": "orphaned", "overflow_rate": "over window", "front": "front"}


@command()
def recommend(
    sources: Sources,
    window: Annotated[int, typer.Option(help="Your model's context window in tokens (the budget of every call).",
                                        show_default=False)],
    strategy: Annotated[list[str] | None, typer.Option(
        help="Policies to compare, NAME[:key=value,...] (repeatable) [default: every policy that needs no LLM].",
        show_default=False)] = None,
    reference: Annotated[str, typer.Option(help="Real tokenizer that counts what is sent.")] = DEFAULT_COUNTER,
    db: Db = None,
    limit: Limit = None,
    workers: Annotated[int, typer.Option(help="Worker processes (0 = in this process).")] = DEFAULT_WORKERS,
    skip_invalid: SkipInvalid = False,
    price_model: Annotated[str | None, typer.Option(
        help="Also price every call by this litellm model with prompt caching, and show the front by dollars.",
        show_default=False)] = None,
    vs_anchors: Annotated[bool, typer.Option(
        "--vs-anchors", help="Instead: run the agent presets and `recommended` at several settings, and show "
                             "recommended's recall at each agent's tokens sent (wins / ties / loses).")] = False,
) -> None:
    """Which context policy keeps the most of what matters on your sessions, and what it sends.

    Every policy runs with its own token counter (as the agent it reproduces would), turn by turn;
    the reference tokenizer measures what is really sent and what overflows the window.
    """
    from ctxlab import store
    from ctxlab.analysis import frames
    from ctxlab.analysis.recommend import frontier
    from ctxlab.analysis.recommend import recommend as pick
    from ctxlab.bench import deterministic_strategies

    if vs_anchors:
        _vs_anchors(sources, window, reference, db, workers, limit, skip_invalid)
        return
    config = ReplayConfig(tuple(sources), tuple(strategy or deterministic_strategies()), (window,), counters=(SEED,),
                          references=(reference,), modes=("per-turn",), estimators=(), db=db or store.default_db(),
                          workers=workers, limit=limit, name=f"recommend-{window}", skip_invalid=skip_invalid,
                          price_models=(price_model,) if price_model else ())
    summary = run_replay(config)
    with store.reading(summary.db) as con:
        costs = store.session_costs(con, summary.run_id) if price_model else None
        front = frontier(frames.results(con, summary.run_id, mode="per-turn"), reference, costs)
    shown = front.assign(front=front["on_front"].map({True: "*", False: ""}))
    headers = dict(FRONT_HEADERS)
    if costs is not None:
        shown["cost_usd"] = front["cost_usd"].map("${:,.4f}".format)
        shown["cost_front"] = front["on_cost_front"].map({True: "*", False: ""})
        headers |= {"cost_usd": f"$ / session ({price_model})", "cost_front": "$ front"}
    out = console()
    out.print(df_table(shown, f"Policies at a {window:,}-token window, turn by turn ({reference} counts; "
                              "* = on the Pareto front of recall vs tokens sent)", headers))
    choice = pick(front)
    if choice is None:
        out.print("[yellow]no policy produced results to compare[/yellow]")
        return
    out.print(f"\n[bold]recommended: {choice.label}[/bold]  {choice.evidence}")
    out.print(f"run {summary.run_id} in {summary.db}: `ctxlab dashboard --db {summary.db}` shows the front")


VS_HEADERS = {"anchor": "agent preset", "anchor_tokens": "its tokens sent / session", "anchor_recall": "its recall",
              "anchor_overflow_rate": "its calls over window", "candidate_recall": "recommended at those tokens",
              "verdict": "verdict", "dominated": "a cheaper setting keeps as much"}


def _vs_anchors(sources: list[str], window: int, reference: str, db: str | None, workers: int, limit: int | None,
                skip_invalid: bool) -> None:
    """`recommended` against every agent preset at equal tokens sent (`ctxlab.analysis.dominance`)."""
    from ctxlab import store
    from ctxlab.analysis import frames
    from ctxlab.analysis.dominance import dominance, replay_config
    from ctxlab.analysis.recommend import frontier

    config = replay_config(sources, (window,), reference=reference, db=db or store.default_db(), workers=workers,
                           limit=limit, name=f"vs-anchors-{window}", skip_invalid=skip_invalid)
    summary = run_replay(config)
    with store.reading(summary.db) as con:
        front = frontier(frames.results(con, summary.run_id, mode="per-turn"), reference)
    table = dominance(front)
    three = "{:.3f}".format  # verdicts turn on a 0.005 band
    out = console()
    shown = ("label", "tokens_sent", "fact_recall", "overflow_rate", "orphan_rate")
    out.print(df_table(front.assign(fact_recall=front["fact_recall"].map(three)),
                       f"Every setting at a {window:,}-token window ({reference} counts)",
                       {k: FRONT_HEADERS[k] for k in shown}))
    out.print(df_table(table.assign(anchor_recall=table["anchor_recall"].map(three),
                                    candidate_recall=table["candidate_recall"].map(lambda r: "-" if r != r else three(r))),
                       "recommended against the agent presets at their tokens sent", VS_HEADERS))
    counts = table["verdict"].value_counts()
    out.print(", ".join(f"{n} {verdict}" for verdict, n in counts.items()) + f"; run {summary.run_id} in {summary.db}")
