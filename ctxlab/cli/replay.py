"""Commands over the replay and the store: replay, runs, compare, bench, sql (the demo: `ctxlab.cli.demo`).

They parse options, call `ctxlab.replay`, `ctxlab.store` and `ctxlab.bench`, and print rich
tables; the numbers themselves come from the store's query functions.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from ctxlab.cli.app import command, fail
from ctxlab.cli.common import Db, console, df_table
from ctxlab.replay.config import (
    DEFAULT_COUNTER,
    DEFAULT_ESTIMATORS,
    DEFAULT_REFERENCES,
    DEFAULT_WINDOWS,
    DEFAULT_WORKERS,
    ENGINES,
    SEED,
    ReplayConfig,
)

SUMMARY_COLUMNS = {"label": "strategy", "counter": "counter", "window": "window", "mode": "mode",
                   "units": "units", "errors": "err", "needed_recall": "needed recall", "retained_ratio": "kept",
                   "fit_rate": "fit", "tool_integrity": "tools ok", "fact_recall": "regex recall",
                   "p50_latency_ms": "p50 ms"}


def summary_columns(df: Any) -> dict[str, str]:
    """The summary table's columns, with one real-fit column per reference tokenizer."""
    graded = "needed_recall" in df.columns and df["needed_recall"].notna().any()  # final mode has no next action
    cols = {k: v for k, v in SUMMARY_COLUMNS.items() if k in df.columns and (k != "needed_recall" or graded)}
    refs = {c: f"fit {c.removeprefix('real_fit_').removesuffix('_base')}" for c in df.columns
            if c.startswith("real_fit_")}
    keys = list(cols)
    at = keys.index("fit_rate") + 1 if "fit_rate" in keys else len(keys)
    return {k: (cols | refs)[k] for k in [*keys[:at], *refs, *keys[at:]]}


def print_summary(db: str, run_id: str, title: str) -> None:
    from ctxlab import store

    with store.reading(db) as con:
        df = store.strategy_summary(con, run_id)
    console().print(df_table(df, title, summary_columns(df)))


def print_estimators(db: str, run_id: str, reference: str = "o200k_base") -> None:
    """Per estimator against `reference`: the error over all messages, then MAPE by content kind."""
    from ctxlab import store

    with store.reading(db) as con:
        overall = store.estimator_summary(con, run_id, by=("counter", "reference"))
        kinds = store.estimator_summary(con, run_id, by=("counter", "reference", "content_kind"))
    overall, kinds = overall[overall["reference"] == reference], kinds[kinds["reference"] == reference]
    if overall.empty:
        return
    wide = kinds.pivot(index="counter", columns="content_kind", values="mape_pct").add_prefix("mape_")
    table = overall.drop(columns="reference").set_index("counter").join(wide).reset_index()
    table["underestimate_share"] *= 100
    columns = {"counter": "estimator", "n": "messages", "mean_signed_error_pct": "mean error %", "mape_pct": "MAPE %",
               "p95_abs_error_pct": "p95 |error| %", "underestimate_share": "undercounts %",
               **{c: f"MAPE {c.removeprefix('mape_')} %" for c in wide.columns}}
    console().print(df_table(table, f"Token estimators vs {reference}, per message (error % = (estimated - actual) / "
                                     "actual; undercounts overflow real windows)", columns))


def print_policies(db: str, run_id: str, reference: str = "o200k_base") -> None:
    """Per dataset and window of a per-turn run, the policies by needed-context recall (`ctxlab demo
    --tables`; the demo prints their verdicts once, at its end, from the same rows)."""
    from ctxlab import store
    from ctxlab.analysis.verdicts import stored
    from ctxlab.cli.fronts import FRONT_HEADERS, percents

    with store.reading(db) as con:
        found = stored(con, run_id, reference)
    shown = ("label", "counter", "needed_recall", "ci", "in_context_recall", "instruction_survival", "tokens_sent",
             "effective_tokens", "fact_recall", "overflow_rate")
    for policies in found.windows if found is not None else []:
        front = policies.front.sort_values("needed_recall", ascending=False, ignore_index=True)
        where = f"{policies.verdict.dataset} " if policies.verdict is not None else ""
        window = int(front["window"].iloc[0])
        console().print(df_table(percents(front), f"Which policy for {where}at a {window:,}-token window, "
                                                  "turn by turn (needed recall first; regex fact recall for "
                                                  "comparison)", {k: FRONT_HEADERS[k] for k in shown}))


def print_costs(db: str, run_id: str) -> None:
    """Per dataset and price model, the cheapest policy per session with prompt caching."""
    from ctxlab import store
    from ctxlab.analysis.costs import cheapest

    with store.reading(db) as con:
        table = cheapest(store.session_costs(con, run_id))
    if table.empty:
        return
    shown = table.assign(cost_usd=table["cost_usd"].map("${:,.4f}".format),
                         baseline_cost_usd=table["baseline_cost_usd"].map("${:,.4f}".format),
                         saving=table["saving"].map("{:.0%}".format))
    console().print(df_table(shown, "Cheapest policy per session with prompt caching (per-turn run)", {
        "dataset": "dataset", "price_model": "price model", "label": "policy", "counter": "counter",
        "window": "window", "cost_usd": "$ / session", "tied": "others tied on cost", "baseline_cost_usd": "$ uncompressed",
        "saving": "saving"}))


def run_replay(config: ReplayConfig) -> Any:
    """Run a replay with a progress bar; Ctrl-C ends it cleanly (the same command resumes)."""
    from ctxlab.replay import ReplayInterrupted, RichProgress, replay

    try:
        with RichProgress(total=config.limit * len(config.sources) if config.limit else None) as progress:
            return replay(config, progress)
    except ReplayInterrupted as exc:
        raise fail(str(exc), code=130) from None


def report_summary(summary: Any) -> None:
    out = console()
    out.print(f"run [bold]{summary.name}[/bold] ({summary.run_id}) {summary.status} in {summary.wall_s:.1f} s: "
              f"{summary.conversations} conversation(s), {summary.units:,} unit(s), {summary.errors} error(s), "
              f"{summary.skips} skip(s)" + (f", {summary.resumed} already done" if summary.resumed else ""))
    for note in summary.notes:
        out.print(f"[yellow]note:[/yellow] {note}")


@command()
def replay(
    sources: Annotated[list[str], typer.Argument(help="Paths, sample:<name>, hf:<dataset>[:<split>] or sharegpt.",
                                                 show_default=False)],
    strategy: Annotated[list[str] | None, typer.Option(help="NAME[:key=value,...] (repeatable) [default: all].",
                                                       show_default=False)] = None,
    window: Annotated[list[int] | None, typer.Option(
        help=f"Context window in tokens, what every strategy must fit in (repeatable) "
             f"[default: {' '.join(map(str, DEFAULT_WINDOWS))}].", show_default=False)] = None,
    counter: Annotated[list[str] | None, typer.Option(
        help=f"Counter the strategies use (repeatable); '{SEED}' = each strategy's own [default: {DEFAULT_COUNTER}].",
        show_default=False)] = None,
    reference: Annotated[list[str] | None, typer.Option(
        help=f"Real tokenizer(s) to check fit with (repeatable) [default: {' '.join(DEFAULT_REFERENCES)}].",
        show_default=False)] = None,
    mode: Annotated[list[str] | None, typer.Option(help="final, per-turn or both (repeatable) [default: final].",
                                                   show_default=False)] = None,
    db: Db = None,
    workers: Annotated[int, typer.Option(help="Worker processes (0 = in this process).")] = DEFAULT_WORKERS,
    engine: Annotated[str, typer.Option(help=" or ".join(ENGINES) + ".")] = ENGINES[0],
    ray_address: Annotated[str | None, typer.Option(help="Join this Ray cluster.", show_default=False)] = None,
    limit: Annotated[int | None, typer.Option(help="At most this many conversations per source.",
                                              show_default=False)] = None,
    name: Annotated[str | None, typer.Option(help="A name for the run.", show_default=False)] = None,
    skip_invalid: Annotated[bool, typer.Option("--skip-invalid", help="Record bad records as skips and go on.")] = False,
    no_estimators: Annotated[bool, typer.Option("--no-estimators", help="Do not record estimator errors.")] = False,
    no_quality: Annotated[bool, typer.Option("--no-quality", help="Skip fact recall and summary metrics.")] = False,
    no_grounded: Annotated[bool, typer.Option(
        "--no-grounded", help="Skip the grounded measures of per-turn units (needed-context recall, refetch, "
                              "instruction survival; docs/quality.md).")] = False,
    price_model: Annotated[list[str] | None, typer.Option(
        help="Price every per-turn call by this litellm model, with prompt caching (repeatable; needs --mode "
             "per-turn or both).",
        show_default=False)] = None,
    budget: Annotated[list[int] | None, typer.Option(hidden=True)] = None,  # --window's name before issue 21
) -> None:
    """Replay conversations through strategies x windows and store what each keeps (resumable)."""
    from ctxlab.store import default_db

    windows = tuple([*(window or ()), *(budget or ())]) or DEFAULT_WINDOWS
    config = ReplayConfig(
        sources=tuple(sources), strategies=tuple(strategy or ()), windows=windows,
        counters=tuple(counter or (DEFAULT_COUNTER,)), references=tuple(reference or DEFAULT_REFERENCES),
        modes=tuple(mode or ("final",)), estimators=() if no_estimators else DEFAULT_ESTIMATORS,
        db=db or default_db(), workers=workers, engine=engine, ray_address=ray_address, limit=limit, name=name,
        skip_invalid=skip_invalid, quality=not no_quality, price_models=tuple(price_model or ()),
        grounded=not no_grounded)
    summary = run_replay(config)
    report_summary(summary)
    print_summary(summary.db, summary.run_id, f"{summary.name}: mean per strategy x window")


@command()
def runs(db: Db = None) -> None:
    """List the runs stored in a database."""
    from ctxlab import store

    with store.reading(db) as con:
        df = store.runs(con)
    cols = {"run_id": "run", "name": "name", "status": "status", "started_at": "started", "conversations": "convs",
            "units": "units", "errors": "errors", "skips": "skips", "wall_s": "wall s", "counters": "counters",
            "modes": "modes", "sources": "sources"}
    console().print(df_table(df, f"runs in {db or store.default_db()}", cols))


@command()
def compare(run_a: Annotated[str, typer.Argument(help="Run id, id prefix or name.")],
            run_b: Annotated[str, typer.Argument(help="Run id, id prefix or name.")],
            db: Db = None,
            mode: Annotated[str | None, typer.Option(help="Only this mode.", show_default=False)] = None) -> None:
    """Two runs side by side per strategy x counter x window x mode, with deltas (b - a)."""
    from ctxlab import store

    with store.reading(db) as con:
        a, b = store.resolve_run(con, run_a), store.resolve_run(con, run_b)
        df = store.compare_runs(con, a, b, mode=mode)
    cols = {"label": "strategy", "counter": "counter", "window": "window", "mode": "mode"}
    for metric, header in (("retained_ratio", "retained"), ("fit_rate", "fits"), ("fact_recall", "recall")):
        cols |= {f"{metric}_a": f"{header} A", f"{metric}_b": f"{header} B", f"{metric}_delta": "delta"}
    console().print(df_table(df, f"A = {a}   B = {b}", {k: v for k, v in cols.items() if k in df.columns}))


@command()
def sql(query: Annotated[str, typer.Argument(help="SQL over the views results, estimator_errors and the tables.")],
        db: Db = None,
        max_rows: Annotated[int, typer.Option(help="Rows to print.")] = 50) -> None:
    """Run a read-only query against a database and print the result."""
    import duckdb

    from ctxlab import store
    from ctxlab.errors import CtxlabError

    with store.reading(db) as con:
        try:
            df = con.execute(query).df()
        except duckdb.Error as exc:
            raise CtxlabError(f"query failed: {exc}{_window_hint(query, exc)}") from None
    console().print(df_table(df, f"{len(df):,} row(s)", max_rows=max_rows))


def _window_hint(query: str, exc: Exception) -> str:
    """A hint when a query that failed to parse names the column window bare (DuckDB reserves it)."""
    import re

    bare = re.search(r'(?<![."\w])window(?![\w"])', query, re.IGNORECASE)
    return ('\nhint: window is a reserved word in DuckDB: write "window" or qualify it, r.window '
            "(docs/store.md)") if bare and "Parser Error" in str(exc) else ""


@command()
def bench(
    scale: Annotated[bool, typer.Option("--scale", help="Also the scale run (sharegpt + 100,000 generated).")] = False,
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 2,
    scale_n: Annotated[int, typer.Option(help="Generated conversations for --scale.")] = 100_000,
    out_dir: Annotated[str, typer.Option(help="Where bench databases go.")] = "bench",
    live_logs: Annotated[list[str] | None, typer.Option(
        help="Agent logs the live tuner is also timed on (repeatable) [default: $CTXLAB_REALLOGS/claude_code and "
             "$CTXLAB_REALLOGS/pi/session.jsonl when $CTXLAB_REALLOGS is set].", show_default=False)] = None,
    only_live: Annotated[bool, typer.Option("--only-live", help="Only the live tuner's knob changes.")] = False,
    history: Annotated[bool, typer.Option(
        "--history", help="Instead: a user's whole history (ctxlab generate --kind history: 500 sessions, 100,000 "
                          "calls, written into --out-dir once): recommend, tune, a knob change and a final replay, "
                          "each with wall, CPU and peak memory against tokenizing it once.")] = False,
    history_path: Annotated[str | None, typer.Option(help="--history on this file instead of the generated one.",
                                                     show_default=False)] = None,
    history_window: Annotated[int, typer.Option(help="--history: the window recommend, tune and the knob change "
                                                     "run at.")] = 64_000,
    part: Annotated[list[str] | None, typer.Option(
        help="--history: only these parts (recommend, tune, live, final; repeatable) [default: all].",
        show_default=False)] = None,
    engine: Annotated[str, typer.Option(help="--history: the replay engine, " + " or ".join(ENGINES) + ".")
                      ] = ENGINES[0],
) -> None:
    """Measure replay speed against tokenizing the bundled data once, and against langchain; and how
    fast the live tuner answers a knob change (``--history``: the same on a user's whole history)."""
    from ctxlab import bench as b

    os.makedirs(out_dir, exist_ok=True)
    out = console()
    if history:
        from ctxlab.bench.history import run_history

        for line in run_history(out_dir, workers=workers, window=history_window, path=history_path,
                                parts=part or ("recommend", "tune", "live", "final"), engine=engine, echo=out.print):
            out.print(line, markup=False)
        return
    logs = live_logs if live_logs is not None else _default_live_logs()
    for line in b.run_bench(out_dir=out_dir, workers=workers, scale=scale, scale_n=scale_n, echo=out.print,
                            live_logs=logs, only_live=only_live):
        out.print(line, markup=False)


def _default_live_logs() -> list[str]:
    """The real logs of ``$CTXLAB_REALLOGS`` the live tuner is timed on (none when it is unset)."""
    root = os.environ.get("CTXLAB_REALLOGS")
    if not root:
        return []
    paths = [os.path.join(root, "claude_code"), os.path.join(root, "pi", "session.jsonl")]
    return [p for p in paths if os.path.exists(p)]
