"""`ctxlab recommend`: replay sessions turn by turn through every policy at the user's window and
say which to run, with the Pareto front of needed-context recall (what the agent's recorded next
action used) against effective cost (tokens sent plus refetch) as the evidence."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ctxlab.cli.app import command
from ctxlab.cli.common import Db, Limit, Reference, SkipInvalid, Skips, console, df_table, load_sources
from ctxlab.cli.fronts import FRONT_HEADERS, percents, print_verdict
from ctxlab.cli.replay import run_replay
from ctxlab.cli.sessions import NEWEST, FromAgent, LogSources, Newest, sources_from
from ctxlab.replay.config import DEFAULT_COUNTER, DEFAULT_WORKERS, recommend_config


@command()
def recommend(
    sources: LogSources = None,
    *,  # the options below are keyword-only, so a required one may follow the optional sources
    from_agent: FromAgent = None,
    newest: Newest = NEWEST,
    window: Annotated[int, typer.Option(help="Your model's context window in tokens (what every call must fit in).",
                                        show_default=False)],
    strategy: Annotated[list[str] | None, typer.Option(
        help="Policies to compare, NAME[:key=value,...] (repeatable) [default: every policy that needs no LLM].",
        show_default=False)] = None,
    reference: Reference = DEFAULT_COUNTER,
    db: Db = None,
    limit: Limit = None,
    workers: Annotated[int, typer.Option(help="Worker processes (0 = in this process).")] = DEFAULT_WORKERS,
    skip_invalid: SkipInvalid = False,
    price_model: Annotated[str | None, typer.Option(
        help="Also price every call by this litellm model with prompt caching, and show the front by dollars.",
        show_default=False)] = None,
    vs_anchors: Annotated[bool, typer.Option(
        "--vs-anchors", help="Instead: run the agent presets and `recommended` at several settings, and show "
                             "recommended's needed, in-context and non-regex recall at each agent's tokens sent "
                             "(wins / ties / loses pooled, the difference, sessions won / tied / lost).")] = False,
) -> None:
    """Which context policy keeps the most of what your agent used next, and what it sends.

    Every policy runs with its own token counter (as the agent it reproduces would), turn by turn;
    each call is graded by the session's recorded next action (needed-context recall); the
    reference tokenizer measures what is really sent and what overflows the window.
    """
    from ctxlab import store
    from ctxlab.analysis.limits import LIMIT_NOTE
    from ctxlab.analysis.recommend import stored_policies
    from ctxlab.analysis.standin_shipped import logs_gap, logs_rows
    from ctxlab.analysis.verdicts import with_standin
    from ctxlab.bench import deterministic_strategies
    from ctxlab.cost import input_price
    from ctxlab.store.compaction_grades import save_compaction_grades

    sources = sources_from(sources, from_agent, newest)
    if vs_anchors:
        _vs_anchors(sources, window, reference, db, workers, limit, skip_invalid)
        return
    config = recommend_config(sources, window, strategy or deterministic_strategies(), reference=reference,
                              db=db or store.default_db(), workers=workers, limit=limit, skip_invalid=skip_invalid,
                              price_model=price_model)
    summary = run_replay(config)
    with store.reading(summary.db) as con:
        costs = store.session_costs(con, summary.run_id) if price_model else None
        found = stored_policies(con, summary.run_id, reference, costs, input_price(price_model) if price_model else None)
    front = found.front.sort_values("needed_recall", ascending=False, ignore_index=True)
    shown = percents(front).assign(front=front["on_front"].map({True: "*", False: ""}))
    headers = dict(FRONT_HEADERS)
    if costs is not None:
        shown["effective_usd"] = front["effective_usd"].map("${:,.4f}".format)
        shown["cost_front"] = front["on_cost_front"].map({True: "*", False: ""})
        headers |= {"effective_usd": f"$ / session + refetch ({price_model})", "cost_front": "$ front"}
    out = console()
    out.print(df_table(shown,
                       f"Policies at a {window:,}-token window, turn by turn ({reference} counts). Needed recall: "
                       "strings the agent's next action used that earlier history held, still sent (95% CI over "
                       "sessions); + refetch: tokens sent plus those of the smallest earlier message holding each lost "
                       "string, per session; * = on the front of needed recall vs that", headers))
    out.print(LIMIT_NOTE, markup=False)  # where the limit binds: the verdict's headroom
    if found.verdict is None:
        out.print("[yellow]no policy produced results to compare[/yellow]")
        return
    graded = logs_rows(load_sources(sources, True, Skips(), limit))
    if graded:  # the report and the Which policy page read it from the store
        with store.writing(summary.db) as con:
            save_compaction_grades(con, graded, "o200k_base")
    print_verdict(with_standin(found, logs_gap(graded)).verdict)
    out.print(f"run {summary.run_id} in {summary.db}: `ctxlab dashboard --db {summary.db}` shows the front")


VS_HEADERS = {"anchor": "agent preset", "anchor_tokens": "its tokens sent / session", "anchor_recall": "its needed recall",
              "anchor_overflow_rate": "its calls over window", "candidate_recall": "recommended at those tokens",
              "verdict": "verdict", "difference": "recommended - it [95% paired CI]", "sessions": "sessions W/T/L/out",
              "in_context": "in context: verdict, recommended - it, sessions W/T/L",
              "non_regex": "non-regex: verdict, recommended - it, sessions W/T/L", "dominated": "a cheaper setting keeps as much"}


def _vs_anchors(sources: list[str], window: int, reference: str, db: str | None, workers: int, limit: int | None,
                skip_invalid: bool) -> None:
    """`recommended` against every agent preset at equal tokens sent (`ctxlab.analysis.dominance`):
    pooled with 95% intervals over sessions, and session by session on each session's own curve."""
    from ctxlab import store
    from ctxlab.analysis import frames
    from ctxlab.analysis.dominance import SETTINGS, dominance, replay_config
    from ctxlab.analysis.limits import LIMIT_NOTE, limit_reading
    from ctxlab.analysis.recommend import frontier
    from ctxlab.analysis.sessions import unit_rows

    config = replay_config(sources, (window,), settings=(*SETTINGS, "learned"), reference=reference,
                           db=db or store.default_db(), workers=workers, limit=limit, name=f"vs-anchors-{window}",
                           skip_invalid=skip_invalid)
    summary = run_replay(config)
    with store.reading(summary.db) as con:
        results = frames.results(con, summary.run_id, mode="per-turn")
    units = unit_rows(results, reference)
    front = frontier(results, reference)
    tables = {y: dominance(front, units, y=y) for y in ("needed_recall", "in_context_recall", "non_regex_recall")}
    table = tables["needed_recall"]
    out = console()
    shown = ("label", "tokens_sent", "needed_recall", "ci", "in_context_recall", "non_regex_recall", "fact_recall",
             "overflow_rate", "orphan_rate", "limit_recall", "headroom_closed")
    out.print(df_table(percents(front), f"Every setting at a {window:,}-token window ({reference} counts)",
                       {k: FRONT_HEADERS[k] for k in shown}))
    out.print(f"{LIMIT_NOTE} {limit_reading(front)}", markup=False)
    shown_table = table.assign(
        anchor_recall=_interval(table, "anchor"), candidate_recall=_interval(table, "candidate"),
        anchor_overflow_rate=table["anchor_overflow_rate"].map(lambda v: "-" if v != v else f"{100 * v:.1f}%"),
        difference=_difference(table), sessions=_tally(table), **{y.removesuffix("_recall"): _verdict(tables[y]) for y in ("in_context_recall",
                                                                                      "non_regex_recall")})
    out.print(df_table(shown_table, "recommended against the agent presets at their tokens sent (needed recall, "
                                    "95% CI over sessions; tied: zero inside the paired 95% interval of the "
                                    "difference, over sessions pooled, over the session's calls per session)",
                       VS_HEADERS))
    counts = table["verdict"].value_counts()
    out.print(", ".join(f"{n} {verdict}" for verdict, n in counts.items()) + f"; run {summary.run_id} in {summary.db}")
    _learned(front, units)


def _learned(front: Any, units: Any) -> None:
    """`learned` (the shipped model) against recommended's curve read at its own tokens (docs/learned.md)."""
    from ctxlab.learn.verdicts import versus_recommended

    table = versus_recommended(front, units, "learned")
    for row in table.itertuples():
        measure = row.measure.replace("_", " ")
        if row.recommended is None or row.recommended != row.recommended:
            console().print(f"learned, {measure}: out of recommended's range of settings", markup=False)
            continue
        console().print(f"learned (the shipped need model), {measure}: {100 * row.learned:.1f}% at "
                        f"{row.tokens_sent:,.0f} tokens / session; recommended's curve there {100 * row.recommended:.1f}% "
                        f"({row.difference:+.1f} pt, {row.verdict}, sessions W/T/L/out {row.won}/{row.tied}/{row.lost}/"
                        f"{row.out})", markup=False)


def _interval(table: Any, who: str) -> Any:
    def show(row: Any) -> str:
        value, low, high = row[f"{who}_recall"], row[f"{who}_low"], row[f"{who}_high"]
        if value is None or value != value:
            return "-"
        bounds = f" [{100 * low:.1f}-{100 * high:.1f}]" if low == low and high == high and low is not None else ""
        return f"{100 * value:.1f}%{bounds}"

    return table.apply(show, axis=1) if len(table) else table["anchor"]


def _difference(table: Any) -> Any:
    """recommended's recall minus the anchor's, in points, with its paired interval."""
    def show(row: Any) -> str:
        d, low, high = (100 * row[c] for c in ("difference", "difference_low", "difference_high"))
        return "-" if d != d else f"{d:+.1f} pt" + (f" [{low:+.1f}, {high:+.1f}]" if low == low else "")

    return table.apply(show, axis=1) if len(table) else table["anchor"]


def _verdict(table: Any) -> Any:
    """The pooled verdict, the difference with its interval, and the session tally."""
    return table["verdict"] + " " + _difference(table) + " " + _tally(table, out=False)


def _tally(table: Any, out: bool = True) -> Any:
    """Sessions won / tied / lost (/ out of range) by `recommended`, as W/T/L text."""
    text = (table["sessions_won"].astype(str) + "/" + table["sessions_tied"].astype(str) + "/"
            + table["sessions_lost"].astype(str))
    return text + "/" + table["sessions_out"].astype(str) if out else text
