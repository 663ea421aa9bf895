"""`ctxlab demo`: replay the bundled samples, then end with a decision (`ctxlab.demo`): per dataset
and window the best policy by needed-context recall and the cheapest (ties named), the one to run,
and one `ctxlab tune` example with its snippet. The full tables stay one command away (``--tables``,
`ctxlab compare`, the report, the dashboard)."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Annotated, Any

import typer

from ctxlab.cli.app import command
from ctxlab.cli.common import console
from ctxlab.cli.replay import (
    print_costs,
    print_estimators,
    print_policies,
    print_summary,
    report_summary,
    run_replay,
)
from ctxlab.demo import TUNE_SESSIONS
from ctxlab.replay.config import DEFAULT_COUNTER, DEFAULT_WINDOWS, SEED, ReplayConfig

REFERENCE = "o200k_base"


@command()
def demo(
    db: Annotated[str, typer.Option("--db", help="DuckDB file to write.")] = "ctxlab.duckdb",
    limit: Annotated[int | None, typer.Option(help="At most this many conversations per dataset (final mode).",
                                              show_default=False)] = None,
    per_turn_limit: Annotated[int | None, typer.Option(
        help="Conversations per dataset replayed turn by turn [default: as --limit].", show_default=False)] = None,
    tune_sessions: Annotated[int, typer.Option(
        help="Bundled agent sessions the closing `ctxlab tune` example searches over (0: no example).")] = TUNE_SESSIONS,
    tables: Annotated[bool, typer.Option("--tables", help="Also print the full comparison tables.")] = False,
    workers: Annotated[int, typer.Option(help="Worker processes.")] = 2,
    report: Annotated[str, typer.Option(help="Where to write the HTML report.")] = "reports/report.html",
) -> None:
    """Replay the bundled samples through every strategy, both modes, write the db and the report,
    and end with which policy to run at each window and a `ctxlab tune` example."""
    from ctxlab.bench import DEMO_PER_TURN_WINDOWS, DEMO_PRICE_MODELS, DEMO_SOURCES, demo_references

    refs = demo_references()
    per_turn = per_turn_limit if per_turn_limit is not None else limit
    out = console()
    out.print(f"[bold]1/3[/bold] final: every strategy with {DEFAULT_COUNTER} and with its seed counter, "
              f"windows {DEFAULT_WINDOWS[0]}-{DEFAULT_WINDOWS[-1]}, fit checked with {', '.join(refs)}")
    final = run_replay(ReplayConfig(DEMO_SOURCES, counters=(DEFAULT_COUNTER, SEED), references=tuple(refs), db=db,
                                    workers=workers, limit=limit, name="demo-final"))
    report_summary(final)
    out.print(f"[bold]2/3[/bold] per-turn: {per_turn or 'all'} conversation(s) per dataset, windows "
              f"{' and '.join(map(str, DEMO_PER_TURN_WINDOWS))}, "
              f"compressed before every assistant message as an agent would, priced by {' and '.join(DEMO_PRICE_MODELS)}")
    turns = run_replay(ReplayConfig(DEMO_SOURCES, windows=DEMO_PER_TURN_WINDOWS, references=tuple(refs),
                                    modes=("per-turn",), db=db, workers=workers, limit=per_turn, name="demo-per-turn",
                                    price_models=DEMO_PRICE_MODELS))
    report_summary(turns)
    if tables:
        print_summary(db, final.run_id, "demo-final: estimator-driven strategies overflow real windows (fits columns)")
        print_summary(db, turns.run_id, "demo-per-turn: needed recall = strings the next action used, still sent")
        print_policies(db, turns.run_id)
        print_estimators(db, final.run_id)
        print_costs(db, turns.run_id)
    _write_report(db, report)
    example = _tune(db, tune_sessions, DEMO_PRICE_MODELS[0])
    print_verdicts(db, turns.run_id, DEMO_PRICE_MODELS[0])
    if example is not None:
        print_example(example)
    ctxlab, path = _runnable("ctxlab"), os.path.abspath(db)
    out.print(f"\nThe full tables: {ctxlab} compare demo-final demo-per-turn --db {db}; the report {report}; "
              f"{ctxlab} dashboard --db {db}; or rerun with --tables.", markup=False, highlight=False)
    out.print("\nnext:\n"
              f"  {ctxlab} dashboard --db {db}\n"
              f"  CTXLAB_DB={path} {_runnable('jupyter')} lab notebooks/\n"
              f"  {ctxlab} tune --from claude_code --policy claude_code --window 200000 "
              f"--price-model {DEMO_PRICE_MODELS[0]}   # on your own sessions\n"
              f"  {ctxlab} sql \"SELECT strategy, counter, avg(fits_reference::INT) FROM results GROUP BY ALL\" --db {db}",
              markup=False, highlight=False)


def _tune(db: str, sessions: int, price_model: str) -> Any:
    from ctxlab.demo import TUNE_POLICY, TUNE_WINDOW, tune_example

    if sessions <= 0:
        return None
    console().print(f"[bold]3/3[/bold] ctxlab tune: {TUNE_POLICY}'s own knobs at {TUNE_WINDOW:,} tokens over "
                    f"{sessions} bundled agent session(s)")
    return tune_example(db, price_model=price_model, reference=REFERENCE, sessions=sessions)


def print_verdicts(db: str, run_id: str, price_model: str) -> None:
    """Per dataset and window: what to run, the best by recall and the cheapest (`ctxlab.demo`), in
    the lines `ctxlab recommend`, the report and the dashboard print."""
    from ctxlab.analysis.wording import RULE
    from ctxlab.cli.fronts import print_verdict
    from ctxlab.demo import verdicts

    console().print(f"\n[bold]Verdict[/bold] for the bundled sessions, replayed turn by turn. Needed recall: the share "
                    "of what the agent's next action used that was still sent [95% CI over sessions]. Cost: $ per "
                    f"session with prompt caching ({price_model}) + refetching what was lost. {RULE}", highlight=False)
    for v in verdicts(db, run_id, reference=REFERENCE, price_model=price_model):
        print_verdict(v, evidence=False)


def print_example(example: Any) -> None:
    """The tuner's pick on the slice beside the agent's default, and the pick in the agent's own terms."""
    from ctxlab.tune.evidence import versus

    out, result = console(), example.outcome.result
    out.print(f"\n[bold]Tune your agent's own settings[/bold] (example: {len(result.evaluations)} settings of "
              f"{result.preset} searched in {example.outcome.seconds:.0f} s):\n  {example.command}", highlight=False)
    if result.pick is None:
        out.print("  no setting produced a needed-context recall (no needed strings in these sessions)")
        return
    goal, chosen = result.goal, result.evaluations[result.pick.row]
    out.print(f"  pick:    {_setting(chosen, goal)}", markup=False, highlight=False)
    if result.default is not None and result.default != result.pick.row:
        default = result.evaluations[result.default]
        out.print(f"  default: {_setting(default, goal)} ({versus(chosen, default, goal)})", markup=False,
                  highlight=False)
    for snippet in example.snippets[:1]:
        out.print(f"  {snippet.title} (names from {snippet.source}):", markup=False, highlight=False)
        out.print("\n".join(f"    {line}" for line in snippet.text.splitlines()), markup=False, highlight=False)


def _setting(evaluation: Any, goal: Any) -> str:
    from ctxlab.tune.evidence import describe, interval, number

    q, c = evaluation.measures[goal.quality], evaluation.measures[goal.cost]
    rejected = evaluation.measures[goal.rejected].mean if goal.rejected else 0.0
    return (f"{describe(evaluation) or 'as shipped'}: needed recall {interval(q, goal.quality)}, "
            f"{number(c.mean, goal.cost)}/session" + (f", {rejected:.1%} of calls rejected" if rejected else ""))


def _runnable(script: str) -> str:
    """How to type `script` here: its bare name when the shell finds this environment's copy,
    else its path (``.venv/bin/ctxlab`` right after ``make demo``, with no venv activated)."""
    local = os.path.join(os.path.dirname(sys.executable), script)
    found = shutil.which(script)
    if not os.path.exists(local) or (found and os.path.samefile(found, local)):
        return script
    relative = os.path.relpath(local)
    return relative if not relative.startswith("..") else local


def _write_report(db: str, path: str) -> None:
    from ctxlab.report import write_report

    console().print(f"report: {write_report(db, path)}")
